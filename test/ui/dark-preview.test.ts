import { describe, expect, it } from 'vitest';
import { colorModeDocument } from '../../ui/src/components/preview/dark-preview.ts';
import { GROWTH, growth, LINEAR } from '../support/scale.ts';

/** The inbox's dark-mode preview document (issue 19): its policy lands in the real head, in linear time. */

const POLICY = "default-src 'none'";
const META = `<meta http-equiv="Content-Security-Policy" content="${POLICY}">`;

describe('the dark preview document', () => {
  it('puts the policy in the real head, never in a comment or an attribute that says <head', () => {
    const cases: [string, string][] = [
      [
        '<!-- <head> --><html><head><title>t</title></head><body>x</body></html>',
        `<!-- <head> --><html><head>${META}<title>t</title></head><body>x</body></html>`,
      ],
      ['<html data-x="<head>"><body>x</body></html>', `<html data-x="<head>"><head>${META}</head><body>x</body></html>`],
      ['<!-- <head> --><p>x</p>', `<!DOCTYPE html><html><head>${META}</head><body><!-- <head> --><p>x</p></body></html>`],
      ['<p>x</p><head></head>', `<!DOCTYPE html><html><head>${META}</head><body><p>x</p><head></head></body></html>`],
      ['<!DOCTYPE html><html lang="en"><HEAD><title>x</title></HEAD></html>', `<!DOCTYPE html><html lang="en"><HEAD>${META}<title>x</title></HEAD></html>`],
    ];
    for (const [html, expected] of cases) expect(colorModeDocument(html, 'light', POLICY), html).toBe(expected);
  });

  it("keeps the email's own dark styles and color-scheme reading as before", () => {
    const html =
      '<html><head><meta name="color-scheme" content="light dark"><style>@media (prefers-color-scheme: dark){p{color:#fff}}</style></head><body><p>x</p></body></html>';
    const styled = colorModeDocument(html, 'styles', POLICY);
    expect(styled).toContain('@media (min-width: 0px)');
    expect(styled).toContain(':root { color-scheme: dark; }');
    expect(colorModeDocument('<style>:root{color-scheme: light dark}</style><p>x</p>', 'styles', POLICY)).toContain(':root { color-scheme: dark; }');
    expect(colorModeDocument('<meta name="color-scheme" content="light"><p>x</p>', 'styles', POLICY)).not.toContain(':root { color-scheme: dark; }');
    expect(colorModeDocument(html, 'light', POLICY)).toContain('@media (max-width: 0px)');
  });

  it(`builds the document in linear time: ${GROWTH}× \`<head \` or \`<meta \` costs < ${LINEAR}× the time`, async () => {
    for (const unit of ['<head ', '<meta name=color-scheme ', '<!--', '<html a="']) {
      const build = (html: string) => {
        for (const mode of ['light', 'styles', 'invert'] as const) colorModeDocument(html, mode, POLICY);
      };
      const { ratio } = await growth((bytes) => unit.repeat(Math.floor(bytes / unit.length)), build, 128 * 1024);
      expect(ratio, unit).toBeLessThan(LINEAR);
    }
  });
});
