import { describe, expect } from 'vitest';
import { HOSTILE_SHAPES } from '../../../bench/lib/hostile-shapes.ts';
import { textSnippet } from '../../../server/domain/messages/snippet.ts';
import { read } from '../../support/app.ts';
import { test } from '../../support/fixtures.ts';
import { GROWTH, growth, LINEAR, longestHold } from '../../support/scale.ts';

/**
 * Hostile mail read through the real app's routes (issue 19): each shape of
 * bench/lib/hostile-shapes.ts, captured through /v1 at 128 KB and at 1 MB, is read by
 * /extract, /html and /text; 8× the mail costs less than 20× the time (test/support/scale.ts:
 * a quadratic read costs 64×), and no read holds the event loop a second.
 */

const KB = 1024;
const LARGE = 1024 * KB;
const SMALL = LARGE / GROWTH;

/** `capture(shape, bytes)`: the id of a capture of that shape, sent once per file. */
const it = test.extend('capture', { scope: 'file' }, ({ v1 }) => {
  const ids = new Map<string, Promise<string>>();
  return (name: string, bytes: number) => {
    const key = `${name}/${bytes}`;
    let id = ids.get(key);
    if (!id) {
      const shape = HOSTILE_SHAPES.find((s) => s.name === name)!;
      const made = shape.make(bytes);
      const fields = shape.part === 'html' ? { body: made } : { body: '<p>See the plain part.</p>', plain_body: made };
      id = v1.post('/v1/email/send/', { recipient: 'hostile@example.com', subject: name, use_account_template: false, ...fields }).then(async (res) => {
        expect(res.status).toBe(200);
        return ((await res.json()) as { id: string }).id;
      });
      ids.set(key, id);
    }
    return id;
  };
});

// The shapes that were quadratic or worse in each read (bench/hostile.ts times every shape in every read).
const READS: Record<string, string[]> = {
  extract: ['code-tokens', 'code-tokens-text', 'anchors', 'url-punctuation', 'one-line', 'hidden-scripts', 'deep-div'],
  html: ['head-open', 'whitespace', 'hidden-scripts', 'meta-open'],
  text: ['wide-table', 'long-table', 'deep-div'],
};

describe('hostile mail through the routes', () => {
  for (const [route, shapes] of Object.entries(READS)) {
    for (const name of shapes) {
      it(`/${route} of ${name}: ${GROWTH}× the mail costs < ${LINEAR}× the time, and the event loop is never held a second`, async ({ app, capture }) => {
        const get = async (id: Promise<string>) => {
          const res = await fetch(`${app.url}/api/messages/${await id}/${route}`);
          expect(res.status).toBe(200);
          return res.text();
        };
        // Both captured first, so no send runs while a read is measured; the small read warms the route up.
        await get(capture(name, SMALL));
        const large = capture(name, LARGE);
        await large;
        const held = await longestHold(() => get(large));
        expect(held).toBeLessThan(1000);
        // The app holds other 1 MB captures, and a collection in one read must not decide: growth keeps the lowest.
        const { ratio } = await growth((bytes) => capture(name, bytes), get, SMALL);
        expect(ratio).toBeLessThan(LINEAR);
      }, 60_000);
    }
  }
});

describe('whole captures of hostile mail', () => {
  it('the detail, latest and search of each 1 MB shape answer without holding the event loop a second', async ({ app, capture }) => {
    for (const name of ['code-tokens', 'anchors', 'deep-div', 'wide-table', 'head-open', 'hidden-scripts']) {
      const id = await capture(name, LARGE);
      for (const path of [`/api/messages/${id}`, `/api/messages/latest?subject=${name}`, `/api/messages/search?subject=${name}&limit=1`]) {
        let status = 0;
        const held = await longestHold(async () => {
          status = (await read(await fetch(app.url + path))).status;
        });
        expect(status, path).toBe(200);
        expect(held, path).toBeLessThan(1000);
      }
    }
  }, 120_000);
});

describe('the snippet, computed when mail is captured', () => {
  it(`reads its first 64 KB in linear time: ${GROWTH}× of it costs < ${LINEAR}× the time`, async () => {
    // The snippet reads at most 64 KB, so the sizes compared are 8 KB and 64 KB.
    for (const name of ['head-open', 'unclosed-comments', 'lt-run', 'entities', 'code-tokens']) {
      const shape = HOSTILE_SHAPES.find((s) => s.name === name)!;
      const { ratio } = await growth(shape.make, (html) => textSnippet(null, html), (64 * KB) / GROWTH);
      expect(ratio, name).toBeLessThan(LINEAR);
    }
  });
});

describe('links hidden from the eye', () => {
  it('never returns a tab- or newline-hidden javascript: href as a link, nor leaves it clickable in the preview', async ({ app, v1 }) => {
    const body =
      '<p><a href="java&#9;script:alert(1)">one</a> <a href="jav&#x0A;ascript:alert(2)">two</a> <a href=" &#1;javascript:alert(3)">three</a> ' +
      '<a href="JaVa&#13;ScRiPt:alert(4)">four</a> <svg><a xlink:href="java&#9;script:alert(5)">five</a></svg> <a href="https://app.example/ok">ok</a></p>';
    const sent = await v1.post('/v1/email/send/', { recipient: 'hidden@example.com', subject: 'hidden', body, use_account_template: false });
    const { id } = (await sent.json()) as { id: string };
    const extracted = (await read(await fetch(`${app.url}/api/messages/${id}/extract`))).body as { links: { href: string }[] };
    expect(extracted.links).toEqual([{ href: 'https://app.example/ok', text: 'ok' }]);
    const preview = await (await fetch(`${app.url}/api/messages/${id}/html`)).text();
    expect(preview).toBe(
      '<base target="_blank"><p><a >one</a> <a >two</a> <a >three</a> <a >four</a> <svg><a >five</a></svg> <a href="https://app.example/ok">ok</a></p>',
    );
  });
});

describe("the preview's head", () => {
  it('puts the base target in the real head, never in a comment or an attribute that says <head', async ({ app, v1 }) => {
    const cases: [string, string][] = [
      [
        '<!-- <head> --><html><head><title>t</title></head><body>x</body></html>',
        '<!-- <head> --><html><head><base target="_blank"><title>t</title></head><body>x</body></html>',
      ],
      ['<html data-x="<head>"><head><title>t</title></head></html>', '<html data-x="<head>"><head><base target="_blank"><title>t</title></head></html>'],
      ['<!doctype html><p>x</p><head><title>t</title></head>', '<!doctype html><base target="_blank"><p>x</p><head><title>t</title></head>'],
      [
        '<!DOCTYPE html><html lang="en"><HEAD><title>x</title></HEAD></html>',
        '<!DOCTYPE html><html lang="en"><HEAD><base target="_blank"><title>x</title></HEAD></html>',
      ],
      ['<p>a &lt;head&gt; in text</p>', '<base target="_blank"><p>a &lt;head&gt; in text</p>'],
    ];
    for (const [body, expected] of cases) {
      const { id } = (await (
        await v1.post('/v1/email/send/', { recipient: 'head@example.com', subject: 'head', body, use_account_template: false })
      ).json()) as {
        id: string;
      };
      expect(await (await fetch(`${app.url}/api/messages/${id}/html`)).text(), body).toBe(expected);
    }
  });
});
