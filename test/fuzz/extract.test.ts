import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { extract } from '../../server/domain/mail/extract.ts';
import { announceSeed, fuzzParameters, timed } from './fuzz.ts';

/**
 * Link and code extraction (server/domain/mail/extract.ts) reads whatever a sender wrote: it
 * never throws, never returns a link a browser would run as script, returns no more than the
 * input holds, and answers every input within the budget.
 */
announceSeed('test/fuzz/extract.test.ts');

/** Pieces of a scheme as a sender could hide one: browsers drop tabs and line breaks inside a URL and spaces and control characters around it. */
const schemePiece = fc.constantFrom(
  'java',
  'JaVa',
  'script',
  'SCRIPT',
  'vb',
  ':',
  '&#9;',
  '&#x09;',
  '&#10;',
  '&#x0A;',
  '&#13;',
  '\t',
  '\n',
  ' ',
  '&#0;',
  '\u0001',
  'alert(1)',
  '//',
);
const href = fc.oneof(
  fc.constantFrom('https://app.example/confirm?t=abc&amp;u=1', 'http://localhost:3000/reset', 'mailto:a@example.com', '#top', '/relative', ''),
  fc.array(schemePiece, { maxLength: 8 }).map((a) => a.join('')),
  fc.string({ maxLength: 20 }),
);
const words = fc.constantFrom(
  'Your verification code is',
  'code',
  'OTP',
  'PIN:',
  '123456',
  '123 456',
  'A1B2C3',
  'order #12345',
  '$12.50',
  '© 2026',
  'www.example.com',
  'acme.com/reset?t=1',
  'https://x.example/a',
  'ada@example.com',
  'javascript:alert(1)',
  '.',
  ' ',
  '\n',
);
const tag = fc.oneof(
  href.map((h) => `<a href="${h}">`),
  fc.constantFrom(
    '</a>',
    '<p>',
    '</p>',
    '<br>',
    '<div style="display:none">',
    '</div>',
    '<pre>',
    '</pre>',
    '<script>',
    '</script>',
    '<img alt="x">',
    '<head',
    '<!--',
    '-->',
    '<td>',
  ),
);
const fragment = fc.oneof(
  { arbitrary: words, weight: 3 },
  { arbitrary: tag, weight: 3 },
  { arbitrary: fc.string({ maxLength: 12, unit: 'binary' }), weight: 1 },
);
const smallBody = fc.array(fragment, { maxLength: 40 }).map((a) => a.join(''));
/** A short piece repeated up to ~120 KB (the shapes that turn a super-linear read into seconds), shown as such in a report. */
interface Repeated {
  unit: string;
  times: number;
}
const largeBody = fc.tuple(fc.array(fragment, { minLength: 1, maxLength: 4 }), fc.integer({ min: 1, max: 12_000 })).map(([a, n]): Repeated => {
  const unit = a.join('') || 'x';
  return { unit, times: Math.max(1, Math.min(n, Math.floor(120_000 / unit.length))) };
});
type Body = string | Repeated | null;
const body = fc.option(fc.oneof({ arbitrary: smallBody, weight: 4 }, { arbitrary: largeBody, weight: 1 }), { nil: null });
const written = (b: Body): string | null => (b === null || typeof b === 'string' ? b : b.unit.repeat(b.times));

/** The URL as a browser reads it: C0 controls and spaces around it dropped, tabs and line breaks inside it dropped. */
// biome-ignore lint/suspicious/noControlCharactersInRegex: the URL standard strips exactly these C0 controls
const asBrowsersRead = (url: string) => url.replace(/^[\u0000-\u0020]+|[\u0000-\u0020]+$/g, '').replace(/[\t\n\r]/g, '');

/** Inputs the properties found. */
const EXAMPLES: [Body, Body][] = [
  ['<a href="java&#9;script:alert(1)">x</a>', null],
  ['<a href="jav&#x0A;ascript:alert(1)">x</a>', null],
  // FC_SEED=19, run 6: 69 KB in 1.7 s (the code finder is quadratic in the tokens after a keyword).
  [{ unit: 'PIN:123 456', times: 6_000 }, null],
];

describe('extraction', () => {
  it('never throws, never returns a javascript: or vbscript: link, returns no more than the input holds, within the budget', () => {
    fc.assert(
      fc.property(body, body, (htmlBody, textBody) => {
        const html = written(htmlBody);
        const text = written(textBody);
        const size = (html?.length ?? 0) + (text?.length ?? 0);
        const { links, codes } = timed(`extract of ${size} characters`, () => extract(html, text));
        for (const link of links) expect(asBrowsersRead(link.href), JSON.stringify(link.href)).not.toMatch(/^(?:javascript|vbscript):/i);
        for (const code of codes) expect(code).toMatch(/^[A-Z0-9]{4,8}$/);
        // Each link is at least a few characters of input, each code four; what they carry is
        // the input's, at most a few times over (an anchor's text can be a URL that is a link too).
        expect(links.length).toBeLessThanOrEqual(size / 4 + 1);
        expect(codes.length).toBeLessThanOrEqual(size / 4 + 1);
        const carried = links.reduce((sum, l) => sum + l.href.length + l.text.length, 0) + codes.join('').length;
        expect(carried).toBeLessThanOrEqual(4 * size + 7 * links.length);
      }),
      fuzzParameters(150, EXAMPLES),
    );
  });
});
