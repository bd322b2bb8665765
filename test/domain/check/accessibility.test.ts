import { describe, expect, it } from 'vitest';
import { checkHtml, fixture, lineOf } from './fixtures.ts';

describe('accessibility', () => {
  it('finds every email rule on its line in an email that breaks them all', () => {
    const html = fixture('outlook-unsupported.html');
    const issues = checkHtml(html).accessibility.issues.filter((i) => i.source === 'pigeonhole');
    expect(issues.map((i) => [i.rule, i.line])).toEqual([
      ['text-alternative', null],
      ['html-lang', lineOf(html, '<html>')],
      ['heading-order', lineOf(html, '<h3>')],
      ['img-alt', lineOf(html, '<img')],
      ['small-text', lineOf(html, 'font-size:11px')],
      ['link-text', lineOf(html, 'click here')],
      ['link-text', lineOf(html, '">https://acme.example/summary</a>')],
      ['layout-table', lineOf(html, '<table>')],
    ]);
    const texts = issues.map((i) => i.message).join('\n');
    expect(texts).toContain('Link text "click here" says nothing');
    expect(texts).toContain('bare URL');
    expect(texts).toContain('font-size 11px');
  });

  it('is quiet for a careful table layout with a text part, and knows a data table by its <th>', () => {
    const report = checkHtml(fixture('table-receipt.html'), { text: fixture('table-receipt.txt') });
    expect(report.accessibility.issues).toEqual([]);
  });

  it('reads MJML output: small footer text and "Read more", nothing about its presentation tables', () => {
    const html = fixture('mjml-welcome.html');
    const rules = checkHtml(html, { text: 'Welcome' }).accessibility.issues.map((i) => `${i.rule}@${i.line}`);
    expect(rules).toEqual([
      `small-text@${lineOf(html, 'font-size:13px')}`,
      `small-text@${lineOf(html, 'font-size:12px')}`,
      `link-text@${lineOf(html, '>Read more<')}`,
    ]);
  });

  it("adds html-validate's accessibility preset, with its rule ids and lines", () => {
    const html =
      '<!doctype html>\n<html lang="en">\n<head><title>x</title></head>\n<body>\n<h2></h2>\n<a href="https://a.example/"><img src="x.png" alt=""></a>\n</body>\n</html>';
    const issues = checkHtml(html, { text: 'x' }).accessibility.issues;
    const validator = issues.filter((i) => i.source === 'html-validate');
    expect(validator.map((i) => [i.rule, i.line])).toContainEqual(['empty-heading', 5]);
    expect(validator.every((i) => typeof i.url === 'string' && i.url.startsWith('https://html-validate.org/'))).toBe(true);
    // An image link whose image has an empty alt has no text at all.
    expect(issues.filter((i) => i.rule === 'link-text').map((i) => i.line)).toEqual([6]);
  });

  it('counts pt as 4/3 px, and leaves relative sizes alone', () => {
    const rules = (style: string) =>
      checkHtml(`<html lang="en"><body><p style="${style}">x</p></body></html>`, { text: 'x' }).accessibility.issues.map((i) => i.rule);
    expect(rules('font-size:10pt')).toEqual(['small-text']);
    expect(rules('font-size:11pt')).toEqual([]);
    expect(rules('font-size:0.8em')).toEqual([]);
    expect(rules('font-size:14px')).toEqual([]);
  });

  it('runs html-validate up to 256 KB of HTML and says so past it, still running the email rules', () => {
    const big = `<html lang="en"><body>${'<p>filler text for a long email</p>\n'.repeat(30_000)}<img src="x.png"></body></html>`;
    expect(big.length).toBeGreaterThan(256 * 1024);
    const started = performance.now();
    const issues = checkHtml(big, { text: 'x' }).accessibility.issues;
    expect(performance.now() - started).toBeLessThan(5000);
    expect(issues.map((i) => i.rule)).toEqual(['not-validated', 'img-alt']);
    expect(issues[0]!.message).toBe("The HTML is over 256 KB: html-validate's accessibility rules were not run (Gmail clips at 102 KB anyway).");
  });

  it('does not run html-validate on over 5,000 elements, and says so', () => {
    const many = `<html lang="en"><body>${'<p>x</p>'.repeat(5001)}<img src="x.png"></body></html>`;
    const issues = checkHtml(many, { text: 'x' }).accessibility.issues;
    expect(issues.map((i) => i.rule)).toEqual(['not-validated', 'img-alt']);
    expect(issues[0]!.message).toBe("The HTML has over 5,000 elements: html-validate's accessibility rules were not run.");
  });

  it('does not run html-validate on elements nested over 256 deep (it walks them recursively), and says so', () => {
    const deep = `<html lang="en"><body>${'<div>'.repeat(300)}<img src="x.png">${'</div>'.repeat(300)}</body></html>`;
    const issues = checkHtml(deep, { text: 'x' }).accessibility.issues;
    expect(issues.map((i) => i.rule)).toEqual(['not-validated', 'img-alt']);
    expect(issues[0]!.message).toBe("The HTML nests elements over 256 deep: html-validate's accessibility rules were not run.");
  });
});
