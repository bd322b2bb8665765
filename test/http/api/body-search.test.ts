import { readdir, rm } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect } from 'vitest';
import { api, read } from '../../support/app.ts';
import { test as it } from '../../support/fixtures.ts';

/** A password reset whose code comes after more than the 200 characters of a snippet. */
const INTRO =
  'We received a request to reset the password of the account that belongs to this address. ' +
  'If you did not ask for it, you can ignore this email: nothing changes until the code below is used. ';
const RESET_HTML = `<p>Hello Ada,</p><p>${INTRO}</p><p style="font-size:24px">Your reset code is <b>552817</b>.</p>`;

const q = (base: string, words: string) => fetch(`${base}/api/messages?q=${encodeURIComponent(words)}`).then(read);
const ids = async (base: string, words: string) => ((await q(base, words)).body as any).messages.map((m: any) => m.id);

describe("search reads the body's text (issue 27)", () => {
  it('finds a /v1 reset code past the snippet, in the inbox list and through /api/messages/search', async ({ app, v1 }) => {
    // test-key's sender wraps bodies in the account template: its header and footer take the snippet.
    const { body } = await read(await v1.post('/v1/email/send/', { recipient: 'reset@example.com', subject: 'Reset your password', body: RESET_HTML }));
    const id = (body as any).id as string;
    const listed = (await q(app.url, '552817')).body as any;
    expect(listed.messages.map((m: any) => m.id)).toEqual([id]);
    expect(listed.messages[0].snippet).not.toContain('552817');
    const searched = (await read(await fetch(`${app.url}/api/messages/search?q=552817`))).body as any;
    expect(searched.total).toBe(1);
    expect(searched.messages[0].id).toBe(id);
    expect(searched.messages[0].codes).toContain('552817');
    // Every word, wherever it is: the subject's and the body's together.
    expect(await ids(app.url, 'reset 552817 ada')).toEqual([id]);
    // The template's footer ("Acme Inc. ...") is every capture's, not the body as sent.
    expect(await ids(app.url, '552817 inc.')).toEqual([]);
  });

  it('finds an SMTP plain part past the snippet, and a /v1 plain_body the same way', async ({ app, smtp }) => {
    const text = `Hello Bob,\n\n${INTRO}\n\nYour one-time code: 730114\n`;
    const id = await smtp.send({ from: 'app@example.com', to: 'bob@example.com', subject: 'Sign-in code', text });
    const plain = (
      await read(
        await api(app.url, 'bulk-key').post('/v1/email/send/', {
          recipient: 'p@example.com',
          subject: 'Plain',
          body: '<p>x</p>',
          plain_body: `${INTRO} token 918273`,
        }),
      )
    ).body as any;
    expect(await ids(app.url, '730114')).toEqual([id]);
    expect(await ids(app.url, '918273')).toEqual([plain.id]);
  });

  it("reads the first 1,000 characters of the body's text, collapsed, and no further", async ({ app, v1 }) => {
    const filler = 'lorem '.repeat(200);
    const { body } = await read(
      await v1.post('/v1/email/send/', {
        recipient: 'long@example.com',
        subject: 'Long',
        body: `<p>${'early '.repeat(100)}</p><p>${filler}</p><p>farword</p>`,
      }),
    );
    expect(await ids(app.url, 'early lorem')).toEqual([(body as any).id]);
    expect(await ids(app.url, 'farword')).toEqual([]);
  });

  it('keeps the body text across a restart, from checkpoints and from segments read in full', async ({ apps }) => {
    const first = await apps.start();
    const sent = (await read(await api(first.url, 'bulk-key').post('/v1/email/send/', { recipient: 'r@example.com', subject: 'Code', body: RESET_HTML })))
      .body as any;
    await first.close();
    const second = await apps.start({ dataDir: first.dataDir });
    expect(await ids(second.url, '552817')).toEqual([sent.id]);
    await second.close();
    // Without checkpoints, the segment is read line by line: the record holds the text.
    const dir = path.join(first.dataDir, 'messages');
    for (const name of await readdir(dir)) if (name.endsWith('.idx')) await rm(path.join(dir, name));
    const third = await apps.start({ dataDir: first.dataDir });
    expect(await ids(third.url, '552817')).toEqual([sent.id]);
  });
});
