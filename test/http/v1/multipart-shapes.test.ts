import { execFile } from 'node:child_process';
import { readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect } from 'vitest';
import { read } from '../../support/app.ts';
import { test } from '../../support/fixtures.ts';

// A small cap, so the test of the cap sends a handful of files.
test.override('appOptions', { flags: ['--max-attachments', '3'] });

const run = promisify(execFile);

interface Capture {
  html: string;
  text: string | null;
  subject: string;
  attachments: { filename: string; content_type: string; size: number }[];
}

const it = test.extend('sent', { scope: 'file' }, ({ app }) => {
  /** A raw multipart POST to /v1/email/send/ (the bytes a client library writes), answered and its capture read. */
  return async (parts: string[], boundary = 'b0undary') => {
    const body = Buffer.from(`${parts.map((part) => `--${boundary}\r\n${part}\r\n`).join('')}--${boundary}--\r\n`, 'latin1');
    const res = await fetch(`${app.url}/v1/email/send/`, {
      method: 'POST',
      headers: { Authorization: 'Api-Key test-key', 'Content-Type': `multipart/form-data; boundary=${boundary}` },
      body,
    }).then(read);
    return { res, capture: res.status === 200 ? await captureOf(app.url, (res.body as { id: string }).id) : null };
  };
});

const captureOf = (url: string, id: string) => fetch(`${url}/api/messages/${id}`).then((r) => r.json()) as Promise<Capture>;

const field = (name: string, value: string, headers = '') => `Content-Disposition: form-data; name="${name}"\r\n${headers}\r\n${value}`;
const base = [field('recipient', 'shapes@example.com'), field('subject', 'Shapes'), field('use_account_template', 'false')];

describe('multipart parts follow the real service rule: no filename, a field (docs/api-contract.md §1)', () => {
  it("takes curl's -F 'body=<file' and -F 'body=text;type=...' as the body field", async ({ app, tempDir }) => {
    const page = path.join(tempDir, 'reset.html');
    await writeFile(page, '<p>Your code is 552817</p>\n');
    const curl = async (...form: string[]) => {
      const args = [
        '-s',
        '-H',
        'Authorization: Api-Key test-key',
        '-F',
        'recipient=curl@example.com',
        '-F',
        'subject=Reset',
        '-F',
        'use_account_template=false',
      ];
      for (const f of form) args.push('-F', f);
      const { stdout } = await run('curl', [...args, `${app.url}/v1/email/send/`], { cwd: tempDir });
      return JSON.parse(stdout) as { id?: string };
    };
    const fromFile = await curl('body=<reset.html');
    expect(Object.keys(fromFile)).toEqual(['id']);
    expect((await captureOf(app.url, fromFile.id!)).html).toBe('<p>Your code is 552817</p>\n');
    const typed = await curl('body=hi;type=text/plain', 'plain_body=plain;type=text/plain;charset=utf-8');
    const captured = await captureOf(app.url, typed.id!);
    expect([captured.html, captured.text, captured.attachments]).toEqual(['hi', 'plain', []]);
    // A part with a filename is a file, whatever its name: curl's -F 'attachment=@file'.
    const attached = await curl('body=see attached', 'attachment=@reset.html;type=text/html');
    expect((await captureOf(app.url, attached.id!)).attachments).toMatchObject([{ filename: 'reset.html', content_type: 'text/html', size: 27 }]);
  });

  it('takes the shapes Python requests (urllib3) writes, typed fields and RFC 2231 file names included', async ({ sent }) => {
    // requests' data={...}: no Content-Type; files={'body': (None, html, 'text/html')}: no filename, a type.
    const { res, capture } = await sent([
      ...base,
      field('body', '<p>from requests</p>', 'Content-Type: text/html\r\n'),
      `Content-Disposition: form-data; name="attachment"; filename="report.pdf"\r\nContent-Type: application/pdf\r\n\r\n%PDF`,
      // urllib3 1.x writes a non-ASCII file name only as filename* (RFC 2231).
      `Content-Disposition: form-data; name="attachment"; filename*=utf-8''r%C3%A9sum%C3%A9.txt\r\nContent-Type: text/plain\r\n\r\ncv`,
      // A file part without a Content-Type is still a file.
      `Content-Disposition: form-data; name="attachment"; filename="notes"\r\n\r\nn`,
    ]);
    expect(res.status).toBe(200);
    expect(capture!.html).toBe('<p>from requests</p>');
    expect(capture!.attachments.map((a) => [a.filename, a.content_type, a.size])).toEqual([
      ['report.pdf', 'application/pdf', 4],
      ['résumé.txt', 'text/plain', 2],
      ['notes', 'application/octet-stream', 1],
    ]);
  });

  it('decodes a field by the charset its Content-Type names (UTF-8 without one)', async ({ sent }) => {
    const { res, capture } = await sent([
      ...base.slice(0, 1),
      field('subject', 'Caf\xe9', 'Content-Type: text/plain; charset=iso-8859-1\r\n'),
      field('use_account_template', 'false'),
      field('body', Buffer.from('<p>Grüße</p>').toString('latin1')),
    ]);
    expect(res.status).toBe(200);
    expect([capture!.subject, capture!.html]).toEqual(['Café', '<p>Grüße</p>']);
  });

  it('takes what a browser form posts: FormData fields, files, and an empty file input as no file', async ({ app, v1 }) => {
    const form = new FormData();
    form.append('recipient', 'browser@example.com');
    form.append('subject', 'From a form');
    form.append('body', '<p>browser</p>');
    form.append('use_account_template', 'false');
    form.append('attachment', new Blob(['a,b\n'], { type: 'text/csv' }), 'data.csv');
    // A file input left empty: filename="" and application/octet-stream; Django reads it as a field.
    form.append('attachment', new Blob([], { type: 'application/octet-stream' }), '');
    const res = await read(await v1.multipart('/v1/email/send/', form));
    expect(res.status).toBe(200);
    const capture = await captureOf(app.url, (res.body as { id: string }).id);
    expect([capture.html, capture.attachments.map((a) => a.filename)]).toEqual(['<p>browser</p>', ['data.csv']]);
  });
});

describe('the attachment cap (--max-attachments, docs/security.md)', () => {
  it('refuses one file too many with a 400 naming the cap, leaving no temporary file and no capture', async ({ app, sent }) => {
    const before = app.sandbox.messages.count();
    const file = (n: number) => `Content-Disposition: form-data; name="attachment"; filename="f${n}.txt"\r\nContent-Type: text/plain\r\n\r\n${n}`;
    const three = await sent([...base, field('body', 'b'), file(1), file(2), file(3)]);
    expect(three.res.status).toBe(200);
    const many = await sent([...base, field('body', 'b'), ...Array.from({ length: 500 }, (_, n) => file(n))]);
    expect(many.res.status).toBe(400);
    expect(many.res.text).toBe('{"attachment":["Ensure this field has no more than 3 elements."]}');
    expect(app.sandbox.messages.count()).toBe(before + 1);
    await expect.poll(() => readdir(path.join(app.dataDir, 'tmp'))).toEqual([]);
  });

  it('reads past file parts sent to the sandbox API without writing them', async ({ app }) => {
    const form = new FormData();
    form.append('duration', '1m');
    for (let n = 0; n < 20; n++) form.append('attachment', new Blob(['x']), `f${n}.txt`);
    const res = await read(await fetch(`${app.url}/api/clock/advance`, { method: 'POST', body: form }));
    expect(res.status).toBe(200);
    expect(await readdir(path.join(app.dataDir, 'tmp'))).toEqual([]);
    // Read past, still counted: a streamed body (no Content-Length) of file parts over 1 MB is a 413.
    const big = `--x\r\nContent-Disposition: form-data; name="a"; filename="a.bin"\r\n\r\n${'x'.repeat(2 * 1024 * 1024)}\r\n--x--\r\n`;
    const stream = new ReadableStream({
      start(controller) {
        controller.enqueue(new TextEncoder().encode(big));
        controller.close();
      },
    });
    const streamed = await read(
      await fetch(`${app.url}/api/clock/advance`, {
        method: 'POST',
        headers: { 'Content-Type': 'multipart/form-data; boundary=x' },
        body: stream,
        duplex: 'half',
      } as RequestInit),
    );
    expect([streamed.status, streamed.text]).toEqual([413, '{"detail":"Request body exceeds the limit of 1048576 bytes."}']);
  });
});
