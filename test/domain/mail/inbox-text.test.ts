import { describe, expect, it } from 'vitest';
import { decodeWords, parseHeaders } from '../../../server/domain/mail/headers.ts';
import { prepareHtml } from '../../../server/domain/mail/html-preview.ts';
import { textSnippet } from '../../../server/domain/messages/snippet.ts';
import { wrapInTemplate } from '../../../server/domain/mail/template.ts';
import { growth, LINEAR } from '../../support/scale.ts';

const logo = { content: { p: 1, o: 0, n: 1 }, filename: 'logo.png', contentType: 'image/png', size: 1, contentId: 'Logo@Acme' };
const url = (i: number) => `/a/${i}`;

describe('preview HTML', () => {
  it('rewrites cid: references without regard to case, brackets or URL escapes, and leaves unknown ones', () => {
    const html = '<img src="cid:logo@acme"><img src=\'CID:%3Clogo@acme%3E\'><div style="background:url(cid:logo@acme)"></div><img src="cid:other">';
    expect(prepareHtml(html, [logo], url).html).toBe(
      '<base target="_blank"><img src="/a/0"><img src=\'/a/0\'><div style="background:url(/a/0)"></div><img src="cid:other">',
    );
  });

  it('puts the base element inside head, after <html>, or after the doctype, so the document keeps its mode', () => {
    expect(prepareHtml('<!DOCTYPE html><html lang="en"><HEAD><title>x</title></HEAD></html>', [], url).html).toBe(
      '<!DOCTYPE html><html lang="en"><HEAD><base target="_blank"><title>x</title></HEAD></html>',
    );
    expect(prepareHtml('<!doctype html><html><body>x</body></html>', [], url).html).toBe('<!doctype html><html><base target="_blank"><body>x</body></html>');
    expect(prepareHtml('<!doctype html><p>x</p>', [], url).html).toBe('<!doctype html><base target="_blank"><p>x</p>');
  });

  it('with remote content off, renames every frame, object, embed and link tag wherever it stands, in linear time', async () => {
    const html = '<LINK rel=preconnect href=//t.example><iframe\nsrc=//t.example></IFRAME><!-- <embed src=//t.example> --><p title="<object data=x>">';
    expect(prepareHtml(html, [], url, { local: true }).html).toBe(
      '<base target="_blank"><basefont rel=preconnect href=//t.example><noembed\nsrc=//t.example></noembed><!-- <wbr src=//t.example> --><p title="<span data=x>">',
    );
    expect(prepareHtml('<iframes><linked><frameset>', [], url, { local: true }).html).toBe('<base target="_blank"><iframes><linked><frameset>');
    for (const unit of ['<iframe ', '<link', '</object>']) {
      const { ratio } = await growth(
        (bytes) => unit.repeat(Math.floor(bytes / unit.length)),
        (text) => prepareHtml(text, [], url, { local: true }),
        32 * 1024,
      );
      expect(ratio, unit).toBeLessThan(LINEAR);
    }
  });

  it('notices remote images, backgrounds, styles and imports', () => {
    for (const html of [
      '<img src="http://x.example/a.png">',
      '<img src=//x.example/a>',
      '<td background="https://x.example/b">',
      '<div style="background: url( \'https://x.example/c\')">',
      '<style>@import "https://x.example/s.css";</style>',
      '<img srcset="https://x.example/a 2x">',
    ]) {
      expect(prepareHtml(html, [], url).hasRemoteContent, html).toBe(true);
    }
    for (const html of ['<a href="https://x.example">link</a>', '<img src="cid:logo">', '<img src="data:image/png;base64,AA==">', '<p>https://x.example</p>']) {
      expect(prepareHtml(html, [], url).hasRemoteContent, html).toBe(false);
    }
  });
});

describe('headers of the stored message', () => {
  it('unfolds, keeps order and repeats, decodes encoded words, and stops at the body', () => {
    const text =
      'Received: from a\r\n\tby b\r\nSubject: =?UTF-8?Q?Gr=C3=BC=C3=9Fe?= =?UTF-8?B?IOKckw==?= ok\r\nReceived: second\r\nnot a header\r\n\r\nBody: no\r\n';
    expect(parseHeaders(text)).toEqual([
      { name: 'Received', value: 'from a by b' },
      { name: 'Subject', value: 'Grüße ✓ ok' },
      { name: 'Received', value: 'second' },
    ]);
  });

  it('leaves an encoded word with an unknown charset as it is', () => {
    expect(decodeWords('=?x-unknown?B?AAAA?= and =?ISO-8859-1?Q?caf=E9?=')).toBe('=?x-unknown?B?AAAA?= and café');
  });
});

describe('snippet and template', () => {
  it('takes the plain body, else the HTML without head, styles, scripts, tags and entities, whitespace collapsed', () => {
    expect(textSnippet('  Hello\n\n  there  ', '<p>ignored</p>')).toBe('Hello there');
    expect(
      textSnippet(
        null,
        '<html><head><title>T</title><style>p{}</style></head><body><script>x()</script><p>Caf&eacute; &amp; &#8364;5 &#x2713;</p></body></html>',
      ),
    ).toBe('Café & €5 ✓');
    expect(textSnippet(null, null)).toBe('');
    expect(textSnippet('x'.repeat(500), null)).toHaveLength(200);
  });

  it('wraps at every {{content}} and returns the body as it is without a template', () => {
    expect(wrapInTemplate('<main>{{content}}</main><!-- {{content}} -->', '<p>b</p>')).toBe('<main><p>b</p></main><!-- <p>b</p> -->');
    expect(wrapInTemplate(null, '<p>b</p>')).toBe('<p>b</p>');
  });
});
