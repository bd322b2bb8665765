import { describe, expect, it } from 'vitest';
import { isLight } from '../../../server/domain/check/dark-mode.ts';
import { checkHtml, fixture, lineOf } from './fixtures.ts';

const dark = (html: string) => checkHtml(html).dark_mode!;

describe('dark mode', () => {
  it('is content with a receipt that declares color-scheme and restyles every light background with !important', () => {
    expect(dark(fixture('table-receipt.html'))).toEqual({ color_scheme: 'light dark', has_dark_styles: true, findings: [] });
  });

  it('warns about the missing meta and a light email without dark styles', () => {
    const html = fixture('mjml-welcome.html');
    const report = dark(html);
    expect(report.has_dark_styles).toBe(false);
    expect(report.findings.map((f) => [f.rule, f.line])).toEqual([
      ['color-scheme-meta', null],
      ['no-dark-styles', lineOf(html, '<body style="word-spacing:normal;background-color:#F4F4F4;">')],
    ]);
  });

  it('finds light backgrounds the dark styles leave, and inline ones they cannot beat without !important', () => {
    const html = [
      '<html><head><meta name="color-scheme" content="light dark"><style>',
      '@media (prefers-color-scheme: dark) { .card { background-color: #111 } td.cell { background: #222 !important } }',
      '</style></head><body>',
      '<div class="card" style="background-color:#ffffff">covered, but inline wins</div>',
      '<table><tr><td class="cell" style="background:#fafafa">covered</td></tr></table>',
      '<div style="background-color:#f5f5f5">not covered</div>',
      '<div style="background-color:#1f2937">already dark</div>',
      '</body></html>',
    ].join('\n');
    const report = dark(html);
    expect(report.findings.map((f) => [f.rule, f.line])).toEqual([
      ['light-background', 4],
      ['light-background', 6],
    ]);
    expect(report.findings[0]!.message).toContain('add !important');
    expect(report.findings[1]!.message).toContain('#f5f5f5');
    expect(dark('<html><head><meta name="color-scheme" content="light"></head><body></body></html>').findings[0]!.message).toContain('does not offer dark');
  });

  it('tells light colours from dark ones', () => {
    expect(['#fff', '#FFFFFF', 'white', 'rgb(250, 250, 250)', '#f3f4f6'].map(isLight)).toEqual([true, true, true, true, true]);
    expect(['#000', '#4f46e5', 'rgb(17,24,39)', 'navy', 'transparent'].map(isLight)).toEqual([false, false, false, false, false]);
  });
});
