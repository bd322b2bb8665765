import { existsSync } from 'node:fs';
import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startPigeonhole, type RunningPigeonhole } from '../../server/start-pigeonhole.ts';
import { smtpClient } from '../support/smtp.ts';

/**
 * startPigeonhole from the sources (test/package/packed.test.ts runs it from the packed tarball
 * in a fresh project). Temporary data directories go under a private TMPDIR for this file, so
 * "removed by stop()" is checked by an empty folder, whatever else runs on the machine.
 */

let privateTmp: string;
/** What is in the folder but tsx's own cache (`tsx-<uid>`, which tsx on Node 24 makes in the temporary folder it is given). */
const leftIn = async (dir: string) => (await readdir(dir)).filter((name) => !/^tsx-\d+$/.test(name));
const savedTmpdir = process.env.TMPDIR;
const started: RunningPigeonhole[] = [];

beforeAll(async () => {
  privateTmp = await mkdtemp(path.join(tmpdir(), 'start-pigeonhole-test-'));
  process.env.TMPDIR = privateTmp;
});

afterEach(async () => {
  await Promise.all(started.splice(0).map((p) => p.stop()));
});

afterAll(async () => {
  if (savedTmpdir === undefined) delete process.env.TMPDIR;
  else process.env.TMPDIR = savedTmpdir;
  await rm(privateTmp, { recursive: true, force: true });
});

async function start(options?: Parameters<typeof startPigeonhole>[0]): Promise<RunningPigeonhole> {
  const pigeonhole = await startPigeonhole(options);
  started.push(pigeonhole);
  return pigeonhole;
}

function send(url: string, recipient: string, apiKey = 'test-key'): Promise<Response> {
  return fetch(`${url}/v1/email/send/`, {
    method: 'POST',
    headers: { Authorization: `Api-Key ${apiKey}`, 'Content-Type': 'application/json' },
    body: JSON.stringify({ recipient, subject: `Hello ${recipient}`, body: '<p>Hi</p>' }),
  });
}

/** Resolves true when something accepts a TCP connection on the port, false when it is refused. */
function accepts(host: string, port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, host);
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

const portOf = (url: string) => Number(new URL(url).port);

describe('startPigeonhole', () => {
  it('starts on free ports with a temporary data directory, and stop() frees both', async () => {
    const pigeonhole = await start();
    expect(pigeonhole.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(pigeonhole.smtp.host).toBe('127.0.0.1');
    expect(portOf(pigeonhole.url)).toBeGreaterThan(0);
    expect(pigeonhole.smtp.port).toBeGreaterThan(0);
    expect(path.dirname(pigeonhole.dataDir)).toBe(privateTmp);
    expect(existsSync(pigeonhole.dataDir)).toBe(true);
    expect(pigeonhole.client.baseUrl).toBe(pigeonhole.url);
    expect((await fetch(`${pigeonhole.url}/readyz`)).status).toBe(200);

    await Promise.all([pigeonhole.stop(), pigeonhole.stop()]);
    await pigeonhole.stop();
    expect(await accepts('127.0.0.1', portOf(pigeonhole.url))).toBe(false);
    expect(await accepts('127.0.0.1', pigeonhole.smtp.port)).toBe(false);
    expect(await leftIn(privateTmp)).toEqual([]);
  });

  it('runs two sandboxes in one process that never see each other', async () => {
    const events = ['SIGTERM', 'SIGINT', 'exit', 'beforeExit', 'uncaughtException', 'unhandledRejection'] as const;
    const listeners = () => events.map((event) => `${event} ${process.listenerCount(event)}`);
    const before = listeners();
    const [a, b] = await Promise.all([start(), start()]);
    // Nothing process-wide: the test runner's own handlers are the only ones.
    expect(listeners()).toEqual(before);
    expect(new Set([portOf(a.url), portOf(b.url), a.smtp.port, b.smtp.port]).size).toBe(4);
    expect(a.dataDir).not.toBe(b.dataDir);

    expect((await send(a.url, 'ada@example.com')).status).toBe(200);
    const transport = smtpClient(b.smtp.port);
    await transport.sendMail({ from: 'hello@acme.example', to: 'bob@example.com', subject: 'Hello bob@example.com', text: 'Hi' });
    transport.close();

    expect((await a.client.waitForMessage({ recipient: 'ada@example.com' })).source).toBe('api');
    expect((await b.client.waitForMessage({ recipient: 'bob@example.com' })).source).toBe('smtp');
    expect((await a.client.list()).messages.map((m) => m.recipient)).toEqual(['ada@example.com']);
    expect((await b.client.list()).messages.map((m) => m.recipient)).toEqual(['bob@example.com']);

    await a.client.reset();
    expect((await a.client.list()).total).toBe(0);
    expect((await b.client.list()).total).toBe(1);
  });

  it('keeps a data directory it was given, and opens it again with its captures', async () => {
    const dataDir = path.join(privateTmp, 'kept');
    const first = await start({ dataDir });
    expect(first.dataDir).toBe(dataDir);
    expect((await send(first.url, 'ada@example.com')).status).toBe(200);
    await first.stop();
    expect(existsSync(dataDir)).toBe(true);

    const second = await start({ dataDir });
    expect((await second.client.list()).messages.map((m) => m.recipient)).toEqual(['ada@example.com']);
    await second.stop();
    await rm(dataDir, { recursive: true });
  });

  it('takes the configuration as an object or a file, and other options as flags', async () => {
    const config = { teams: [{ id: 'shop', name: 'Shop', senders: [{ id: 'shop-main', name: 'Shop', email: 'shop@example.com', apiKey: 'shop-key' }] }] };
    const fromObject = await start({ config });
    expect((await send(fromObject.url, 'ada@example.com', 'shop-key')).status).toBe(200);
    expect((await send(fromObject.url, 'ada@example.com', 'test-key')).status).toBe(401);

    const file = path.join(privateTmp, 'config.json');
    await writeFile(file, JSON.stringify(config));
    const fromFile = await start({ config: file, flags: ['--max-messages', '1'] });
    expect((await send(fromFile.url, 'ada@example.com', 'shop-key')).status).toBe(200);
    expect((await fromFile.client.senders()).map((s) => s.id)).toEqual(['shop-main']);
    await rm(file);
  });

  it('rejects a bad configuration with the message the command prints, leaving no temporary directory', async () => {
    await expect(startPigeonhole({ config: { teams: 'none' } })).rejects.toThrow(/Invalid configuration file options\.config:\n {2}teams: /);
    await expect(startPigeonhole({ flags: ['--max-age', 'soon'] })).rejects.toThrow('--max-age: "soon" is not a duration');
    await expect(startPigeonhole({ flags: ['--data-dir=/tmp/elsewhere'] })).rejects.toThrow(
      'flags: --data-dir=/tmp/elsewhere: give it as the option dataDir instead',
    );
    expect(await leftIn(privateTmp)).toEqual([]);
  });

  it('frees the data directory when a port is taken', async () => {
    const first = await start();
    await expect(startPigeonhole({ httpPort: portOf(first.url) })).rejects.toMatchObject({ code: 'EADDRINUSE' });
    expect(await leftIn(privateTmp)).toEqual([path.basename(first.dataDir)]);
  });

  it('prints nothing of its own: what goes wrong inside goes to the logger given', async () => {
    const dataDir = path.join(privateTmp, 'damaged');
    const first = await start({ dataDir });
    for (const recipient of ['ada@example.com', 'bob@example.com']) expect((await send(first.url, recipient)).status).toBe(200);
    await first.stop();
    const segment = path.join(dataDir, 'messages', 'seg-000000.json');
    await writeFile(segment, (await readFile(segment, 'utf8')).replace('"recipient":"ada@example.com"', '"recipient":"ada@example.com'));

    const errors: string[] = [];
    const second = await start({ dataDir, logger: { error: (message) => errors.push(message) } });
    // The damage, and that the file was read in full (changed after its checkpoint was taken).
    expect(errors).toEqual([
      expect.stringContaining(`${segment}: damaged lines that do not parse, 1 record could not be read`),
      expect.stringMatching(/^pigeonhole: loaded captures and recipients in \d+ ms: .*1 read in full \(1 changed after it\)/),
    ]);
    expect((await second.client.list()).messages.map((m) => m.recipient)).toEqual(['bob@example.com']);
    await second.stop();
    await rm(dataDir, { recursive: true });
  });
});
