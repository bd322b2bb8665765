import { describe, expect, it } from 'vitest';
import { colorModeHtml } from '../../../server/domain/mail/color-mode.ts';
import { GROWTH, growth, LINEAR } from '../../support/scale.ts';

/** The preview's colour modes (shared by the server's preview page and the Templates page): the rewrites, in linear time. */
describe('the colour modes of the preview', () => {
  const html =
    '<html><head><meta name="color-scheme" content="light dark"><style>@media (prefers-color-scheme: dark){p{color:#fff}}</style></head><body><p>x</p></body></html>';

  it("rewrites the email's dark and light queries per mode and adds the mode's styles after the email", () => {
    const styled = colorModeHtml(html, 'styles');
    expect(styled).toBe(
      `${html.replace('prefers-color-scheme: dark', 'min-width: 0px')}<style data-pigeonhole-dark>:where(:root) { color-scheme: dark; } :where(html) { background-color: #1c1c1e; }</style>`,
    );
    expect(colorModeHtml(html, 'light')).toBe(html.replace('prefers-color-scheme: dark', 'max-width: 0px'));
    expect(colorModeHtml(html, 'invert').startsWith(html.replace('prefers-color-scheme: dark', 'max-width: 0px'))).toBe(true);
    expect(colorModeHtml(html, 'invert')).toContain(':root { filter: invert(1) hue-rotate(180deg); }');
  });

  it('gives a dark canvas only to an email that offers dark (a color-scheme meta or property), not for its dark queries alone', () => {
    const canvas = ':where(:root) { color-scheme: dark; }';
    expect(colorModeHtml('<style>:root{color-scheme: light dark}</style><p>x</p>', 'styles')).toContain(canvas);
    expect(colorModeHtml('<meta name="color-scheme" content="light"><p>x</p>', 'styles')).not.toContain(canvas);
    expect(colorModeHtml('<style>@media (prefers-color-scheme: dark){p{color:#fff}}</style>', 'styles')).not.toContain(canvas);
  });

  it(`rewrites in linear time: ${GROWTH}× \`<meta \` or \`color-scheme:\` costs < ${LINEAR}× the time`, async () => {
    for (const unit of ['<meta name=color-scheme ', '<meta ', 'color-scheme: ', 'prefers-color-scheme: dark ']) {
      const build = (text: string) => {
        for (const mode of ['light', 'styles', 'invert'] as const) colorModeHtml(text, mode);
      };
      const { ratio } = await growth((bytes) => unit.repeat(Math.floor(bytes / unit.length)), build, 128 * 1024);
      expect(ratio, unit).toBeLessThan(LINEAR);
    }
  });
});
