import { Agent, request, type ClientRequest } from 'node:http';
import { afterEach, describe, expect, it } from 'vitest';
import { read } from '../support/app.ts';
import type { ServerProcess } from '../support/server-process.ts';
import { allMessages, processTracker } from '../support/process-helpers.ts';

/**
 * Graceful shutdown of the real process (issue 6): SIGTERM stops accepting connections, lets
 * every request in flight finish and get its answer, flushes, and exits 0 within a few
 * seconds; restarting loses nothing that was answered 200. A request that never finishes is
 * cut after the drain period; a second signal exits at once.
 */

const tracker = processTracker();
afterEach(() => tracker.cleanup());

interface Held {
  req: ClientRequest;
  rest: Buffer;
  reply: Promise<{ status: number; body: string } | Error>;
}

/**
 * A send whose body is only half written: the server has taken the request (it answered
 * `100 Continue` to its headers) and waits for the rest.
 */
async function holdSend(server: ServerProcess, i: number): Promise<Held> {
  const body = Buffer.from(JSON.stringify({ recipient: `held-${i}@example.com`, subject: `Held ${i}`, body: `<p>held ${i}</p>` }));
  const req = request(`${server.url}/v1/email/send/`, {
    method: 'POST',
    agent: false,
    headers: { Authorization: 'Api-Key bulk-key', 'Content-Type': 'application/json', 'Content-Length': body.length, Expect: '100-continue' },
  });
  const reply = new Promise<{ status: number; body: string } | Error>((resolve) => {
    req.on('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }));
    });
    req.on('error', resolve);
  });
  await new Promise<void>((resolve, reject) => {
    req.once('continue', resolve);
    req.once('error', reject);
    req.flushHeaders();
  });
  const half = Math.floor(body.length / 2);
  req.write(body.subarray(0, half));
  return { req, rest: body.subarray(half), reply };
}

const stopping = (server: ServerProcess) => expect.poll(() => server.output()).toContain('Pigeonhole stopping');
const exitOf = (server: ServerProcess) =>
  new Promise<number | null>((resolve) => {
    if (server.child.exitCode !== null) resolve(server.child.exitCode);
    else server.child.once('exit', (code) => resolve(code));
  });

describe('SIGTERM', () => {
  it('refuses new connections, finishes the requests in flight, keeps every 200, exits 0', async () => {
    const dataDir = await tracker.tempDir('pigeonhole-shutdown-');
    const server = await tracker.spawn({ dataDir });
    const held = await Promise.all(Array.from({ length: 6 }, (_, i) => holdSend(server, i)));

    const exited = exitOf(server);
    server.child.kill('SIGTERM');
    await stopping(server);
    // No new connection is taken once stopping has begun.
    await expect(fetch(`${server.url}/livez`)).rejects.toThrow();

    for (const h of held) h.req.end(h.rest);
    const replies = await Promise.all(held.map((h) => h.reply));
    const ids = replies.map((r) => {
      expect(r).not.toBeInstanceOf(Error);
      const { status, body } = r as { status: number; body: string };
      expect(status, body).toBe(200);
      return (JSON.parse(body) as { id: string }).id;
    });
    // Answered, flushed and gone before the drain period would have cut anything.
    expect(await exited).toBe(0);

    const restarted = await tracker.spawn({ dataDir });
    const stored = await allMessages(restarted.url);
    expect(stored.messages.map((m) => m.id).sort()).toEqual([...ids].sort());
    for (const [i, id] of ids.entries()) {
      const capture = (await read(await fetch(`${restarted.url}/api/messages/${id}`))).body as Record<string, unknown>;
      expect({ recipient: capture.recipient, subject: capture.subject, html: capture.html }).toEqual({
        recipient: `held-${i}@example.com`,
        subject: `Held ${i}`,
        html: `<p>held ${i}</p>`,
      });
    }
  });

  it('cuts a request that never finishes after the drain period and still exits 0', async () => {
    const dataDir = await tracker.tempDir('pigeonhole-shutdown-');
    const server = await tracker.spawn({ dataDir });
    const stuck = await holdSend(server, 0);
    const exited = exitOf(server);
    const signalled = performance.now();
    server.child.kill('SIGTERM');
    expect(await exited).toBe(0);
    const took = performance.now() - signalled;
    // The drain period is 5 s; "a few seconds" all told.
    expect(took).toBeGreaterThan(4500);
    expect(took).toBeLessThan(9000);
    expect(await stuck.reply).toBeInstanceOf(Error);
    stuck.req.destroy();

    const restarted = await tracker.spawn({ dataDir });
    expect((await allMessages(restarted.url)).total).toBe(0);
  });

  it('a second signal exits at once with code 1', async () => {
    const dataDir = await tracker.tempDir('pigeonhole-shutdown-');
    const server = await tracker.spawn({ dataDir });
    const stuck = await holdSend(server, 0);
    const exited = exitOf(server);
    const signalled = performance.now();
    server.child.kill('SIGTERM');
    await stopping(server);
    server.child.kill('SIGINT');
    expect(await exited).toBe(1);
    expect(performance.now() - signalled).toBeLessThan(3000);
    expect(server.output()).toContain('Pigeonhole: SIGINT again, exiting without finishing');
    stuck.req.destroy();
  });

  it('closes an idle kept-alive connection at once, though idle ones are otherwise kept 65 s', async () => {
    const dataDir = await tracker.tempDir('pigeonhole-shutdown-');
    const server = await tracker.spawn({ dataDir });
    const agent = new Agent({ keepAlive: true });
    const res = await new Promise<{ keepAlive: string | undefined; socket: import('node:net').Socket }>((resolve, reject) => {
      const req = request(`${server.url}/livez`, { agent }, (res) => {
        res.resume();
        res.on('end', () => resolve({ keepAlive: res.headers['keep-alive']?.toString(), socket: req.socket! }));
      });
      req.on('error', reject);
      req.end();
    });
    // The server outlives a client's own keep-alive (undici keeps sockets ~4 s), so the client closes first.
    expect(res.keepAlive).toBe('timeout=65');
    const closed = new Promise<void>((resolve) => res.socket.once('close', () => resolve()));
    const exited = exitOf(server);
    server.child.kill('SIGTERM');
    await closed;
    expect(await exited).toBe(0);
    agent.destroy();
  });
});
