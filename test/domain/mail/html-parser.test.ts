import fc from 'fast-check';
import { Parser } from 'htmlparser2';
import { describe, expect, it } from 'vitest';
import { HtmlParser } from '../../../server/domain/mail/html-parser.ts';
import { GROWTH, growth, LINEAR } from '../../support/scale.ts';

/** Every event with its indices, as the readers of server/ see them. */
function events(ParserClass: typeof Parser, html: string, recognizeSelfClosing: boolean): unknown[] {
  const out: unknown[] = [];
  const parser: Parser = new ParserClass(
    {
      onopentag: (name, attributes, implied) => out.push(['open', name, attributes, implied, parser.startIndex, parser.endIndex]),
      onclosetag: (name, implied) => out.push(['close', name, implied, parser.startIndex, parser.endIndex]),
      ontext: (text) => out.push(['text', text, parser.startIndex, parser.endIndex]),
      oncomment: (text) => out.push(['comment', text]),
      onattribute: (name, value, quote) => out.push(['attribute', name, value, quote, parser.startIndex, parser.endIndex]),
    },
    { decodeEntities: true, lowerCaseTags: true, lowerCaseAttributeNames: true, recognizeSelfClosing },
  );
  parser.end(html);
  return out;
}

const TAGS = [
  'div',
  'p',
  'b',
  'a',
  'svg',
  'math',
  'foreignObject',
  'li',
  'ul',
  'table',
  'tr',
  'td',
  'br',
  'img',
  'option',
  'select',
  'title',
  'style',
  'h1',
  'dd',
  'dt',
];
const fragment = fc.oneof(
  fc.tuple(fc.constantFrom(...TAGS), fc.boolean(), fc.boolean()).map(([tag, attribute, self]) => `<${tag}${attribute ? ' x="1"' : ''}${self ? '/' : ''}>`),
  fc.constantFrom(...TAGS).map((tag) => `</${tag}>`),
  fc.constantFrom('text ', '<!-- c -->', '&amp;', '<', '\n'),
);

describe('HtmlParser', () => {
  it("gives exactly htmlparser2's Parser's events on generated markup", () => {
    fc.assert(
      fc.property(fc.array(fragment, { maxLength: 60 }), fc.boolean(), (parts, selfClosing) => {
        const html = parts.join('');
        expect(events(HtmlParser, html, selfClosing)).toEqual(events(Parser, html, selfClosing));
      }),
      { numRuns: 400, seed: 19 },
    );
  });

  it(`keeps its stack in linear time: ${GROWTH}× the nesting costs < ${LINEAR}× the time`, async () => {
    const parse = (html: string) => new HtmlParser({ onopentag() {}, onclosetag() {} }, { decodeEntities: true, lowerCaseTags: true }).end(html);
    for (const unit of ['<div>', '<svg><p/>', '<b><i>']) {
      const { ratio } = await growth((count) => unit.repeat(count), parse, 15_000);
      expect(ratio, unit).toBeLessThan(LINEAR);
    }
  });
});
