import { describe, expect, it } from 'vitest';
import { compatibilityReport } from '../../../server/domain/check/compatibility.ts';
import { viewFixture } from '../../support/view-fixtures.ts';
import { checkHtml } from './fixtures.ts';

/** The score rule of docs/checks.md ("The two scores"): what a client ignores without harm does not lower it. */
describe('scores that reward care', () => {
  it('the dark-mode email scores at least as well as the same email without its dark styles', () => {
    const dark = checkHtml(viewFixture('dark-mode.html')).html!;
    const light = checkHtml(viewFixture('light-only.html')).html!;
    expect(dark.score).toBeGreaterThanOrEqual(light.score);
    expect(dark.market_score).toBeGreaterThanOrEqual(light.market_score);
    // Its dark-mode features are still listed, as ignored where unsupported, not as breaking.
    const impact = Object.fromEntries(dark.warnings.map((w) => [w.feature, w.impact]));
    expect(impact).toMatchObject({
      'html-meta-color-scheme': 'ignored',
      'css-at-media-prefers-color-scheme': 'ignored',
      // Used only by the dark query here.
      'css-at-media': 'ignored',
      'css-background-color': 'breaks',
    });
    // Ignored ones sort after every breaking one.
    const first = dark.warnings.findIndex((w) => w.impact === 'ignored');
    expect(dark.warnings.slice(first).every((w) => w.impact === 'ignored')).toBe(true);
  });

  it('counts a feature only where it is used outside an enhancement', () => {
    // border-radius (n in Outlook for Windows) twice inside the dark query, once outside: it counts once.
    const inside = '@media (prefers-color-scheme: dark) { .a { border-radius: 4px } .b { border-radius: 2px } }';
    const once = checkHtml(`<style>${inside}</style><p style="border-radius: 3px">x</p>`).html!;
    const plain = checkHtml('<style>.c { color: red }</style><p style="border-radius: 3px">x</p>').html!;
    const radius = once.warnings.find((w) => w.feature === 'css-border-radius')!;
    expect([radius.count, radius.impact]).toEqual([3, 'breaks']);
    expect(once.score).toBe(plain.score);
    // A query nested inside the dark one is part of the enhancement too.
    const nested = checkHtml('<style>@media (prefers-color-scheme: dark) { @media (max-width: 600px) { .a { display: flex } } }</style><p>x</p>').html!;
    expect(nested.warnings.find((w) => w.feature === 'css-display-flex')!.impact).toBe('ignored');
    expect(nested.score).toBe(checkHtml('<style>@media (prefers-color-scheme: dark) {}</style><p>x</p>').html!.score);
  });

  it(':hover rules are enhancements as a whole; what breaks layout still costs', () => {
    const hover = checkHtml('<style>a:hover { color: red }</style><a href="https://x.example">x</a>').html!;
    expect(hover.warnings.find((w) => w.feature === 'css-pseudo-class-hover')!.impact).toBe('ignored');
    // Its type selector, used only by the :hover rule, is ignored with it.
    expect(hover.warnings.find((w) => w.feature === 'css-selector-type')!.impact).toBe('ignored');
    expect(hover.score).toBe(checkHtml('<style></style><a href="https://x.example">x</a>').html!.score);
    const flex = compatibilityReport(new Map([['css-display-flex', { count: 1, lines: [1] }]]), 4);
    expect([flex.warnings[0]!.impact, flex.score < 100]).toEqual(['breaks', true]);
  });
});
