/**
 * Hostile mail bodies (issue 19): shapes that made a read of a capture quadratic or worse, and
 * others of the same families, each generated at any size (never checked in). `bench/hostile.ts`
 * times every read on them; the tests in test/domain/{mail,check} assert their scaling.
 */

export interface HostileShape {
  name: string;
  /** What it stresses. */
  about: string;
  /** Which part it is: the HTML body or the plain one. */
  part: 'html' | 'text';
  /** A body of about `bytes` characters. */
  make(bytes: number): string;
}

const repeat = (unit: string, bytes: number) => unit.repeat(Math.max(1, Math.floor(bytes / unit.length)));
const numbered = (bytes: number, unit: (n: number) => string) => {
  const parts: string[] = [];
  let length = 0;
  for (let n = 0; length < bytes; n++) {
    const part = unit(n);
    parts.push(part);
    length += part.length;
  }
  return parts.join('');
};

export const HOSTILE_SHAPES: readonly HostileShape[] = [
  {
    name: 'code-tokens',
    about: '"Your verification code" then N short tokens, one sentence',
    part: 'html',
    make: (b) => `<p>Your verification code ${repeat('ab1 ', b)}</p>`,
  },
  { name: 'code-tokens-text', about: 'the same in a plain part', part: 'text', make: (b) => `Your verification code ${repeat('ab1 ', b)}` },
  { name: 'head-open', about: '`<head ` repeated, never closed', part: 'html', make: (b) => repeat('<head ', b) },
  {
    name: 'anchors',
    about: 'anchors whose text is another URL (tracking links)',
    part: 'html',
    make: (b) => numbered(b, (n) => `<a href="https://t.example/${n}">https://app.example/${n}</a>\n`),
  },
  { name: 'style-number', about: 'one long number in a <style>', part: 'html', make: (b) => `<style>p{width:${repeat('1', b)}x}</style><p>x</p>` },
  { name: 'deep-div', about: '`<div>` nested, never closed', part: 'html', make: (b) => repeat('<div>', b) },
  {
    name: 'deep-mismatch',
    about: 'nested `<div>`, then closing tags of elements never opened',
    part: 'html',
    make: (b) => repeat('<div>', b / 2) + repeat('</span>', b / 2),
  },
  { name: 'deep-media', about: '`@media x{` nested, never closed', part: 'html', make: (b) => `<style>${repeat('@media x{', b)}</style>` },
  {
    name: 'many-media',
    about: 'many small @media rules',
    part: 'html',
    make: (b) => `<style>${repeat('@media (max-width:600px){.a{color:red}}', b)}</style><p class="a">x</p>`,
  },
  { name: 'many-attributes', about: 'one element with many attributes', part: 'html', make: (b) => `<p ${numbered(b, (n) => `a${n}="1" `)}>x</p>` },
  { name: 'unclosed-comments', about: '`<!--` repeated, never closed', part: 'html', make: (b) => `<p>x</p>${repeat('<!--', b)}` },
  { name: 'lt-run', about: 'a run of `<`', part: 'html', make: (b) => `<p>x</p>${repeat('<', b)}` },
  {
    name: 'whitespace',
    about: 'long whitespace runs after `src=`, `url(` and `;` in a style',
    part: 'html',
    make: (b) => `<p style="color:red;${repeat(' ', b / 3)}x">x</p>src=${repeat(' ', b / 3)}x url(${repeat(' ', b / 3)}x`,
  },
  { name: 'selector-brackets', about: 'a selector of `[` never closed', part: 'html', make: (b) => `<style>${repeat('[', b)}{color:red}</style>` },
  { name: 'selector-parens', about: 'a selector of `:a(` never closed', part: 'html', make: (b) => `<style>${repeat(':a(', b)}{color:red}</style>` },
  { name: 'rgb-attribute', about: '`rgb(` repeated in a style attribute', part: 'html', make: (b) => `<p style="background:${repeat('rgb(', b)}">x</p>` },
  { name: 'font-size-digits', about: 'a font-size of many digits', part: 'html', make: (b) => `<p style="font-size:${repeat('1', b)}x">x</p>` },
  {
    name: 'url-punctuation',
    about: 'a URL written as text with a long run of punctuation',
    part: 'text',
    make: (b) => `see http://a.example/${repeat('.,', b)}a`,
  },
  { name: 'one-line', about: 'one huge line of words, a few with dots', part: 'text', make: (b) => repeat('word a.b code 123456 ', b) },
  {
    name: 'dark-rules',
    about: 'light backgrounds, each restyled by the last of many dark rules of its class',
    part: 'html',
    make: (b) =>
      `<style>@media (prefers-color-scheme: dark){${numbered(b / 2, (n) => `.x.y${n}{background:#000 !important}`)}.x{background:#000 !important}}</style>${repeat('<td class="x" style="background:#fff">x</td>', b / 2)}`,
  },
  {
    name: 'hidden-scripts',
    about: 'anchors to `java&#9;script:` and `jav&#x0A;ascript:`',
    part: 'html',
    make: (b) => repeat('<a href="java&#9;script:alert(1)">a</a><a href="jav&#x0A;ascript:alert(1)">b</a>', b),
  },
  { name: 'meta-open', about: '`<meta name=color-scheme` repeated, never closed', part: 'html', make: (b) => repeat('<meta name=color-scheme ', b) },
  { name: 'cid-references', about: '`cid:` references repeated', part: 'html', make: (b) => `<img src="${repeat('cid:a', b)}">` },
  { name: 'entities', about: 'entity starts never finished', part: 'html', make: (b) => `<p>${repeat('&#x&amp', b)}</p>` },
  { name: 'wide-table', about: 'one table row of many cells', part: 'html', make: (b) => `<table><tr>${repeat('<td>a b</td>', b)}</tr></table>` },
  { name: 'long-table', about: 'a table of many rows', part: 'html', make: (b) => `<table>${repeat('<tr><td>a</td><td>b</td></tr>', b)}</table>` },
  {
    name: 'nested-tables',
    about: 'tables nested 200 deep, repeated',
    part: 'html',
    make: (b) => repeat(`${'<table><tr><td>'.repeat(200)}x${'</td></tr></table>'.repeat(200)}`, b),
  },
  { name: 'svg-nesting', about: 'svg (foreign content) nested, self-closing children', part: 'html', make: (b) => repeat('<svg><p/>', b) },
];
