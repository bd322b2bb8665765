import { execFile } from 'node:child_process';
import { readdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { promisify } from 'node:util';
import { describe, expect } from 'vitest';
import { read } from '../support/app.ts';
import { test as base } from '../support/fixtures.ts';
import { longestHold } from '../support/scale.ts';

/** `post(path, body, contentType)`: a raw POST with the sample key, read. */
const it = base.extend(
  'post',
  { scope: 'file' },
  ({ app }) =>
    (target: string, body: Buffer | string, contentType: string) =>
      fetch(app.url + target, { method: 'POST', headers: { Authorization: 'Api-Key test-key', 'Content-Type': contentType }, body: body as BodyInit }).then(
        read,
      ),
);

const run = promisify(execFile);

/** The attacks of issue 28 (findings 2 and 3), with the server's default limits. */
const BOUNDARY = 'hostile';
const manyFiles = (count: number) =>
  Buffer.from(
    `--${BOUNDARY}\r\nContent-Disposition: form-data; name="recipient"\r\n\r\na@example.com\r\n` +
      Array.from(
        { length: count },
        (_, n) => `--${BOUNDARY}\r\nContent-Disposition: form-data; name="attachment"; filename="${n}"\r\nContent-Type: text/plain\r\n\r\nx\r\n`,
      ).join('') +
      `--${BOUNDARY}--\r\n`,
  );
const deepJson = (levels: number) => `{"recipient": ${'['.repeat(levels)}${']'.repeat(levels)}}`;
const wideJson = (keys: number) => {
  const parts = ['{'];
  for (let i = 0; i < keys; i++) parts.push(`"k${i}":0,`);
  parts.push('"recipient":"a@example.com"}');
  return parts.join('');
};

const TOO_MANY = '{"attachment":["Ensure this field has no more than 100 elements."]}';
const TOO_DEEP = '{"detail":"JSON parse error - nested deeper than 64 levels"}';
const TOO_WIDE = '{"detail":"JSON parse error - more than 100000 keys and array items"}';

describe('hostile request bodies (issue 28, findings 2 and 3)', () => {
  it('refuses 60,000 attachments at the 101st, writing at most 100 temporary files', async ({ app, post }) => {
    const res = await post('/v1/email/send/', manyFiles(60_000), `multipart/form-data; boundary=${BOUNDARY}`);
    expect(res.status).toBe(400);
    expect(res.text).toBe(TOO_MANY);
    await expect.poll(() => readdir(path.join(app.dataDir, 'tmp'))).toEqual([]);
  });

  it('refuses JSON 5,000,000 levels deep and 1,000,000 keys wide, on /v1 and /api', async ({ post }) => {
    expect((await post('/v1/email/send/', deepJson(5_000_000), 'application/json')).text).toBe(TOO_DEEP);
    expect((await post('/v1/email/send/', wideJson(1_000_000), 'application/json')).text).toBe(TOO_WIDE);
    // An array is as wide as an object of as many keys.
    expect((await post('/v1/email/send/', `{"flags": [${'0,'.repeat(200_000)}0]}`, 'application/json')).text).toBe(TOO_WIDE);
    // The sandbox API takes 1 MB at most (--max-api-body-size): the 12 MB body is refused unread.
    const api = await post('/api/clock/advance', wideJson(1_000_000), 'application/json');
    expect([api.status, api.text]).toEqual([413, '{"detail":"Request body exceeds the limit of 1048576 bytes."}']);
    expect((await post('/api/clock/advance', `{"duration": [${'0,'.repeat(100_000)}0]}`, 'application/json')).text).toBe(TOO_WIDE);
  });

  it('refuses a deep, a wide or a large MCP body with a JSON-RPC error before the SDK parses it, and still serves MCP', async ({ post }) => {
    const mcp = (body: string) => post('/mcp', body, 'application/json');
    const deep = await mcp(`{"jsonrpc":"2.0","id":1,"method":"ping","params":${'['.repeat(500_000)}${']'.repeat(500_000)}}`);
    expect([deep.status, deep.text]).toEqual([
      400,
      '{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error: the JSON body is nested deeper than 64 levels."},"id":null}',
    ]);
    const wide = await mcp(`{"jsonrpc":"2.0","id":1,"method":"ping","params":{"a":[${'0,'.repeat(100_000)}0]}}`);
    expect([wide.status, wide.text]).toEqual([
      400,
      '{"jsonrpc":"2.0","error":{"code":-32700,"message":"Parse error: the JSON body is more than 100000 keys and array items."},"id":null}',
    ]);
    const large = await mcp(wideJson(1_000_000));
    expect([large.status, large.text]).toEqual([
      413,
      '{"jsonrpc":"2.0","error":{"code":-32700,"message":"Request body exceeds the limit of 1048576 bytes."},"id":null}',
    ]);
  });

  it('keeps the event loop turning (/livez within 200 ms of CPU) while the attacks are in flight', async ({ app, tempDir }) => {
    // The attacks come from curl processes, so this process's CPU time is the server's alone.
    const bodies = {
      files: [manyFiles(60_000), `multipart/form-data; boundary=${BOUNDARY}`],
      deep: [deepJson(5_000_000), 'application/json'],
      wide: [wideJson(1_000_000), 'application/json'],
    } as const;
    for (const [name, [body]] of Object.entries(bodies)) await writeFile(path.join(tempDir, name), body);
    const attack = (target: string, name: keyof typeof bodies) =>
      run(
        'curl',
        [
          '-s',
          '-w',
          '\n%{http_code}',
          '-H',
          'Authorization: Api-Key test-key',
          '-H',
          `Content-Type: ${bodies[name][1]}`,
          '--data-binary',
          `@${name}`,
          app.url + target,
        ],
        {
          cwd: tempDir,
        },
      ).then(({ stdout }) => stdout.split('\n'));
    const livez: number[] = [];
    let attacking = true;
    const hold = await longestHold(async () => {
      const probe = (async () => {
        while (attacking) livez.push((await fetch(`${app.url}/livez`)).status);
      })();
      const answers = await Promise.all([
        attack('/v1/email/send/', 'files'),
        attack('/v1/email/send/', 'deep'),
        attack('/v1/email/send/', 'wide'),
        attack('/api/clock/advance', 'wide'),
      ]);
      attacking = false;
      await probe;
      expect(answers).toEqual([
        [TOO_MANY, '400'],
        [TOO_DEEP, '400'],
        [TOO_WIDE, '400'],
        ['{"detail":"Request body exceeds the limit of 1048576 bytes."}', '413'],
      ]);
    });
    expect(livez.length).toBeGreaterThan(0);
    expect(new Set(livez)).toEqual(new Set([200]));
    // CPU time of this process between two turns of its loop (support/scale.ts's longestHold).
    console.info(`longest hold ${hold} ms`);
    expect(hold).toBeLessThan(200);
  });
});
