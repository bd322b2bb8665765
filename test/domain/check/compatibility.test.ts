import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import data from '../../../server/domain/check/caniemail-data.json' with { type: 'json' };
import { compatibilityReport, emailClients, knownFeatures } from '../../../server/domain/check/compatibility.ts';
import { findFeatures, mappedSlugs } from '../../../server/domain/check/features.ts';
import { scanHtml } from '../../../server/domain/check/html-scan.ts';
import { checkHtml, fixture, lineOf } from './fixtures.ts';

type Stats = Record<string, Record<string, Record<string, string>>>;
const features = (data as { features: Record<string, { stats: Stats }> }).features;

describe('the shipped caniemail data', () => {
  it('is caniemail 2.0.2, dated 2026-05, MIT, with its licence beside it', () => {
    const report = checkHtml('<p>x</p>').html!;
    expect(report.data).toEqual({ source: 'caniemail 2.0.2 (caniemail.com)', version: '2.0.2', license: 'MIT', date: '2026-05-13 14:45:41 +0000' });
    const licence = readFileSync(new URL('../../../server/domain/check/caniemail-LICENSE', import.meta.url), 'utf8');
    expect(licence).toContain('MIT License');
    expect(knownFeatures().size).toBe(307);
  });

  it('has every feature the matcher can report (no slug drifts silently)', () => {
    expect(mappedSlugs().filter((slug) => !knownFeatures().has(slug))).toEqual([]);
  });

  it('groups its clients into desktop, web and mobile, with market shares that sum to the source figures', () => {
    const clients = emailClients();
    expect(clients.length).toBeGreaterThan(40);
    expect(clients.find((c) => c.id === 'outlook.windows')).toMatchObject({ name: 'Outlook Windows', platform: 'desktop' });
    expect(clients.find((c) => c.id === 'gmail.android')).toMatchObject({ platform: 'mobile' });
    expect(clients.find((c) => c.id === 'gmail.desktop-webmail')).toMatchObject({ platform: 'web' });
    const share = (family: string) => clients.filter((c) => c.family === family).reduce((s, c) => s + c.market_share, 0);
    expect(share('apple-mail')).toBeCloseTo(57.2, 1);
    expect(share('gmail')).toBeCloseTo(29.5 + 1.9, 1);
    expect(share('yahoo')).toBeCloseTo(3.4, 2);
  });
});

describe('compatibility of real-world emails', () => {
  it('finds what Outlook on Windows does not render in a <style> sheet, on the lines it is written', () => {
    const html = fixture('outlook-unsupported.html');
    const report = checkHtml(html).html!;
    const warning = (feature: string) => report.warnings.find((w) => w.feature === feature);
    for (const [feature, needle] of [
      ['css-display-flex', 'display: flex'],
      ['css-display-grid', 'display: grid'],
      ['css-box-shadow', 'box-shadow'],
      ['css-grid-template', 'grid-template-columns'],
      ['css-transform', 'transform: scale'],
      ['css-pseudo-element-before', 'h2::before'],
      ['css-position', 'position: relative'],
    ] as const) {
      const w = warning(feature);
      expect(w, feature).toBeDefined();
      expect(w!.support['outlook.windows'], feature).toBe('no');
      expect(w!.severity).toBe('error');
      expect(w!.lines, feature).toContain(lineOf(html, needle));
      expect(w!.url).toBe(`https://www.caniemail.com/features/${feature}/`);
    }
    expect(warning('image-webp')!.lines).toEqual([lineOf(html, 'chart.webp')]);
    expect(warning('css-pseudo-class-hover')!.lines).toEqual([lineOf(html, '.card:hover')]);
    // Costliest first, as Mailpit sorts (a use that only enhances costs nothing: docs/checks.md, "The two scores").
    const cost = (w: (typeof report.warnings)[number]) =>
      w.impact === 'ignored' ? 0 : ((w.unsupported_pct + w.partial_pct) * (w.count - w.enhancement_count)) / report.nodes;
    const costs = report.warnings.map(cost);
    expect(costs.every((c, i) => i === 0 || costs[i - 1]! + 0.2 >= c)).toBe(true);
  });

  it("counts nothing inside MJML's Outlook conditional comments and reads its media queries", () => {
    const html = fixture('mjml-welcome.html');
    const report = checkHtml(html).html!;
    const media = report.warnings.find((w) => w.feature === 'css-at-media')!;
    expect(media.count).toBe(2);
    expect(media.lines).toEqual([lineOf(html, '@media only screen and (min-width:480px)'), lineOf(html, '@media only screen and (max-width:479px)')]);
    // The tables inside <!--[if mso | IE]> are comments, for Outlook only: they are not counted.
    const uses = findFeatures(scanHtml(html), knownFeatures());
    const outside = (html.replace(/<!--[\s\S]*?-->/g, '').match(/cellpadding=/g) ?? []).length;
    expect(outside).toBeGreaterThan(0);
    expect((html.match(/cellpadding=/g) ?? []).length).toBeGreaterThan(outside);
    expect(uses.get('html-cellpadding')?.count).toBe(outside);
    expect(uses.get('css-important')!.count).toBe(5);
    expect(report.score).toBeGreaterThan(0);
    expect(report.score).toBeLessThan(100);
  });

  it('scores as Mailpit does: 100 minus the worst partial and worst unsupported share, each times count / nodes', () => {
    // One feature, once, in four elements: computed from the data by hand.
    const html = '<div style="display:flex"><p>a</p><p>b</p><p>c</p></div>';
    const uses = new Map([['css-display-flex', { count: 1, lines: [1] }]]);
    const versions = Object.values(features['css-display-flex']!.stats).flatMap((p) => Object.values(p).flatMap((v) => Object.values(v)));
    const counted = versions.filter((v) => /^[yna]/.test(v));
    const no = (counted.filter((v) => v.startsWith('n')).length / counted.length) * 100;
    const partial = (counted.filter((v) => v.startsWith('a')).length / counted.length) * 100;
    const expected = Math.round((100 - no / 4 - partial / 4) * 10) / 10;
    expect(compatibilityReport(uses, 4).score).toBe(expected);
    expect(scanHtml(html).elements).toHaveLength(4);
    // More often used, a lower score.
    expect(compatibilityReport(new Map([['css-display-flex', { count: 4, lines: [1] }]]), 4).score).toBeLessThan(expected);
  });

  it('weights market_score by share of opens: a feature only Outlook lacks costs less than one Gmail lacks', () => {
    const only = (feature: string) => compatibilityReport(new Map([[feature, { count: 1, lines: [1] }]]), 1);
    const flex = only('css-display-flex').warnings[0]!;
    expect(flex.support['outlook.windows']).toBe('no');
    const animation = only('css-animation').warnings[0]!;
    expect(animation.support['gmail.desktop-webmail']).toBe('no');
    expect(animation.market_unsupported_pct).toBeGreaterThan(flex.market_unsupported_pct);
    expect(only('css-animation').market_score).toBeLessThan(only('css-display-flex').market_score);
  });

  it('filters clients by platform, as Mailpit does', () => {
    const html = fixture('outlook-unsupported.html');
    const desktop = checkHtml(html).html && compatibilityReport(findFeatures(scanHtml(html), knownFeatures()), 17, ['desktop']);
    expect(desktop!.platforms).toEqual(['desktop']);
    expect(new Set(desktop!.clients.map((c) => c.platform))).toEqual(new Set(['desktop']));
    const ids = new Set(desktop!.clients.map((c) => c.id));
    for (const w of desktop!.warnings) for (const id of Object.keys(w.support)) expect(ids.has(id), id).toBe(true);
    const mobile = compatibilityReport(findFeatures(scanHtml(html), knownFeatures()), 17, ['mobile']);
    expect(mobile.clients.some((c) => c.id === 'outlook.windows')).toBe(false);
    expect(mobile.warnings.find((w) => w.feature === 'css-display-flex')?.support['outlook.windows']).toBeUndefined();
  });

  it('reports nothing for plain, well-supported HTML', () => {
    const report = checkHtml('<table role="presentation"><tr><td><p>Hello</p></td></tr></table>').html!;
    expect(report.warnings).toEqual([]);
    expect(report.score).toBe(100);
    expect(report.market_score).toBe(100);
  });
});
