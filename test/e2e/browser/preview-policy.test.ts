import { createServer, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { build } from 'vite';
import { describe, expect, it } from 'vitest';
import { previewPolicy } from '../../../server/domain/mail/preview-policy.ts';
import { announceSeed, fuzzParameters } from '../../fuzz/fuzz.ts';
import { useBrowser } from './browser.ts';

/**
 * Issue 28 #4 in real Chromium: a preview with "Load remote content" unticked lets nothing leave
 * the machine, in every colour mode, whatever the email's head looks like. Generated hostile
 * heads (the tricks that fooled the old head finder: an attribute name that starts with `=`, a
 * comment closed by `--!>`, raw-text elements, foreign content...) carry every kind of element
 * that fetches or connects, all aimed at a local socket that counts the connections it gets.
 * The browser's own parse of each preview is asked too: no frame, object, embed or link in it.
 */
const b = useBrowser();
announceSeed('preview-policy.test.ts');

/** A listening socket that counts every connection (a preconnect sends nothing) and the request lines it reads. */
async function connectionCounter(): Promise<{ port: number; connections: () => number; paths: string[]; close: () => Promise<void> }> {
  let connections = 0;
  const paths: string[] = [];
  const sockets = new Set<Socket>();
  const server: Server = createServer((socket) => {
    connections += 1;
    sockets.add(socket);
    socket.once('data', (data) => {
      paths.push(data.toString('latin1').split(' ')[1] ?? '');
      socket.end('HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
    });
    socket.on('error', () => undefined);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    connections: () => connections,
    paths,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Markup that makes parsers disagree about where the head is, what is text and what is a tag. */
const TRICKS = [
  '<!DOCTYPE html>',
  '<html>',
  '<html ="x>',
  '<html a="',
  '">',
  "'>",
  '<head>',
  '</head>',
  '<body>',
  '<!-- <head> -->',
  '<!--',
  '--!>',
  '-->',
  '<!-->',
  '<!--->',
  '<?x <head> ?>',
  '<!x>',
  '<svg>',
  '</svg>',
  '<math>',
  '<title>',
  '</title>',
  '<noscript>',
  '</noscript>',
  '<template>',
  '<textarea>',
  '</textarea>',
  '<style>',
  '</style>',
  '<noembed>',
  '</noembed>',
  '<xmp>',
  '<table>',
  '<select>',
  '<frameset>',
  '<![CDATA[',
  ']]>',
  '<p title="',
  '=',
  ' ',
  '\n',
];

/** Every way an email reaches a host: fetches the policy governs, and what a browser connects for past it. */
const PAYLOADS = [
  '<img src=R>',
  '<iframe src=R></iframe>',
  '<IFRAME SRC="R">',
  '<iframe\nsrc=R>',
  '<frame src=R>',
  '<object data=R></object>',
  '<embed src=R>',
  '<link rel=preconnect href=R>',
  '<link rel="dns-prefetch" href=R>',
  '<link rel=prefetch href=R>',
  '<link rel=preload as=image href=R>',
  '<link rel=stylesheet href=R>',
  '<meta http-equiv=refresh content="0;url=R">',
  '<video poster=R></video>',
  '<audio src=R></audio>',
  '<input type=image src=R>',
  '<body background=R>',
  '<style>@import "R";</style>',
  '<div style="background:url(R)">x</div>',
  '<svg><image href=R /></svg>',
  '<picture><source srcset="R 1x"><img></picture>',
  '<img srcset="R 2x">',
  '<script src=R></script>',
  '<base href=R>',
  '<iframe srcdoc="<img src=R>"></iframe>',
];

const documents = fc
  .tuple(fc.array(fc.oneof(fc.constantFrom(...TRICKS), fc.constantFrom(...PAYLOADS)), { maxLength: 12 }), fc.constantFrom(...PAYLOADS))
  .map(([pieces, payload]) => [...pieces, payload, '<p>body</p>'].join(''));

/** The two heads that loaded a remote image through the dark previews before (issue 28 #4). */
const FOUND = ['<html ="x><img src=R>"><p>body</p>', '<!-- --!><img src=R><!-- --><p>body</p>', '<iframe src=R></iframe><p>body</p>'];

describe('the preview with remote content off, in every colour mode', () => {
  it('lets no connection leave for generated hostile heads, and the browser parses no frame, object, embed or link in it', async () => {
    const counter = await connectionCounter();
    const { page, errors } = await b.open();
    try {
      const target = `http://127.0.0.1:${counter.port}`;
      let sample = 0;
      /** Loads a preview URL in a frame sandboxed as the inbox's, resolved at its load event; the frame stays. */
      const load = (url: string) =>
        page.evaluate(
          (src) =>
            new Promise<void>((resolve) => {
              const frame = document.createElement('iframe');
              frame.setAttribute('sandbox', 'allow-popups allow-popups-to-escape-sandbox');
              frame.setAttribute('referrerpolicy', 'no-referrer');
              frame.onload = () => resolve();
              frame.src = src;
              document.body.append(frame);
            }),
          url,
        );
      await fc.assert(
        fc.asyncProperty(documents, async (html) => {
          sample += 1;
          const id = await b.send({ recipient: 'hostile@example.com', subject: `Hostile head ${sample}`, body: html.replaceAll('R', `${target}/${sample}`) });
          for (const mode of ['light', 'styles', 'invert']) {
            await load(`/api/messages/${id}/html?mode=${mode}`);
            const frame = page.frames().find((f) => f.url().endsWith(`/api/messages/${id}/html?mode=${mode}`))!;
            expect(await frame.evaluate(() => document.querySelectorAll('iframe, frame, object, embed, link').length), `${mode}: ${html}`).toBe(0);
          }
          expect(counter.connections(), html).toBe(0);
        }),
        fuzzParameters(
          30,
          FOUND.map((html) => [html] as [string]),
        ),
      );
      // The positive signal that comes after them all: the same socket, reached by a preview
      // that asks for remote content, is seen; only then is the count read.
      const id = await b.send({ recipient: 'hostile@example.com', subject: 'Remote asked for', body: `<img src="${target}/control">` });
      await load(`/api/messages/${id}/html?remote=1&mode=invert`);
      await expect.poll(() => counter.paths).toEqual(['/control']);
      expect(counter.connections()).toBe(1);
      expect(errors).toEqual([]);
    } finally {
      await counter.close();
    }
  });
});

/** What the preview policy governs (a srcdoc frame has no server page to make frames and links inert: only these are its promise). */
const GOVERNED = PAYLOADS.filter((p) => !/<(?:i?frame|object|embed|link rel=(?!stylesheet))/i.test(p));

/** The Templates page's document builder (ui/…/dark-preview.ts), bundled for a page: `window.DarkPreview`. */
async function darkPreviewBundle(): Promise<string> {
  const entry = fileURLToPath(new URL('../../../ui/src/components/preview/dark-preview.ts', import.meta.url));
  const out = await build({
    configFile: false,
    logLevel: 'silent',
    build: { write: false, minify: false, lib: { entry, formats: ['iife'], name: 'DarkPreview' } },
  });
  const bundle = (Array.isArray(out) ? out[0]! : out) as { output: { code: string }[] };
  return `${bundle.output[0]!.code}; window.DarkPreview = DarkPreview;`;
}

describe("the srcdoc document of the Templates page's colour modes", () => {
  it("has its policy placed by the browser's parser: a policy without remote content lets no fetch leave for generated hostile heads", async () => {
    const counter = await connectionCounter();
    const { page, errors } = await b.open();
    try {
      await page.evaluate(await darkPreviewBundle());
      const target = `http://127.0.0.1:${counter.port}`;
      const policy = previewPolicy(b.server.url, false, 'meta');
      const load = (html: string, mode: string, remote: string) =>
        page.evaluate(
          ({ html, mode, policy }) =>
            new Promise<string>((resolve) => {
              const doc = (window as any).DarkPreview.colorModeDocument(html, mode, policy) as string;
              const frame = document.createElement('iframe');
              frame.setAttribute('sandbox', 'allow-popups allow-popups-to-escape-sandbox');
              frame.onload = () => resolve(doc);
              frame.srcdoc = doc;
              document.body.append(frame);
            }),
          { html, mode, policy: remote },
        );
      const heads = fc
        .tuple(fc.array(fc.oneof(fc.constantFrom(...TRICKS), fc.constantFrom(...GOVERNED)), { maxLength: 12 }), fc.constantFrom(...GOVERNED))
        .map(([pieces, payload]) => [...pieces, payload, '<p>body</p>'].join(''));
      let sample = 0;
      await fc.assert(
        fc.asyncProperty(heads, async (html) => {
          sample += 1;
          for (const mode of ['light', 'styles', 'invert']) {
            const doc = await load(html.replaceAll('R', `${target}/${sample}`), mode, policy);
            // What the frame got starts with the policy, as the first element of the head.
            expect(doc.replace(/^<!DOCTYPE[^>]*>/, '').startsWith(`<html`), doc).toBe(true);
            expect(doc).toMatch(/^(?:<!DOCTYPE[^>]*>)?<html[^>]*><head><meta http-equiv="Content-Security-Policy" content="default-src 'none'; /);
          }
          expect(counter.connections(), html).toBe(0);
        }),
        fuzzParameters(
          20,
          FOUND.slice(0, 2).map((html) => [html] as [string]),
        ),
      );
      // The positive signal after them all: the same builder with remote content allowed reaches the socket.
      await load(`<img src="${target}/control">`, 'light', previewPolicy(b.server.url, true, 'meta'));
      await expect.poll(() => counter.paths).toEqual(['/control']);
      expect(counter.connections()).toBe(1);
      expect(errors).toEqual([]);
    } finally {
      await counter.close();
    }
  });
});
