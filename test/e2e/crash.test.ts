import { readdir, readFile, stat } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, describe, expect, it, vi } from 'vitest';
import { decodeId } from '../../server/domain/ids.ts';
import { api, read } from '../support/app.ts';
import type { ServerProcess } from '../support/server-process.ts';
import { allMessages, inParallel, jsonFilesUnder, processTracker, WIRE_TIME } from '../support/process-helpers.ts';

/**
 * docs/architecture.md, Storage: "an accepted request is answered only after its data is written (a crash
 * after a 200 loses nothing)". The real server takes a burst of sends over several connections
 * and is killed with SIGKILL while requests are still in flight; after a restart on the same
 * data directory, every email that got a 200 must be there, whole.
 */

const WORKERS = 8;
/** 200s to collect before the kill; the burst itself only stops when the server dies. */
const OKS_BEFORE_KILL = 300;
/** A runaway guard: the kill lands long before this many requests. */
const MAX_REQUESTS = 20_000;

const tracker = processTracker();
afterAll(() => tracker.cleanup());

interface Planned {
  recipient: string;
  subject: string;
  body: string;
  plain: string | null;
  attachments: { filename: string; contentType: string; bytes: Buffer }[];
  encoding: 'json' | 'form' | 'multipart';
}

/** Request number i of the burst: a quarter JSON, a quarter form, half multipart with 1 or 2 files. */
function plan(i: number): Planned {
  const base = { recipient: `crash-${i}@example.com`, subject: `Crash burst #${i}`, body: `<p>Burst email <b>${i}</b></p>` };
  switch (i % 4) {
    case 0:
      return { ...base, plain: null, attachments: [file(i, 0, 'application/octet-stream')], encoding: 'multipart' };
    case 1:
      return { ...base, plain: null, attachments: [], encoding: 'json' };
    case 2:
      return { ...base, plain: `Burst email ${i}`, attachments: [], encoding: 'form' };
    default:
      return { ...base, plain: `Burst email ${i}`, attachments: [file(i, 0, 'text/plain'), file(i, 1, 'application/pdf')], encoding: 'multipart' };
  }
}

function file(i: number, k: number, contentType: string) {
  const size = 256 + ((i * 37 + k * 1031) % 8192);
  const bytes = Buffer.alloc(size);
  for (let b = 0; b < size; b++) bytes[b] = (b * 31 + i * 7 + k) & 0xff;
  return { filename: `burst-${i}-${k}.bin`, contentType, bytes };
}

function send(v1: ReturnType<typeof api>, p: Planned): Promise<Response> {
  if (p.encoding === 'json') return v1.post('/v1/email/send/', { recipient: p.recipient, subject: p.subject, body: p.body });
  if (p.encoding === 'form') return v1.form('/v1/email/send/', { recipient: p.recipient, subject: p.subject, body: p.body, plain_body: p.plain! });
  const form = new FormData();
  form.append('recipient', p.recipient);
  form.append('subject', p.subject);
  form.append('body', p.body);
  if (p.plain !== null) form.append('plain_body', p.plain);
  for (const a of p.attachments) form.append('attachment', new Blob([new Uint8Array(a.bytes)], { type: a.contentType }), a.filename);
  return v1.multipart('/v1/email/send/', form);
}

interface Burst {
  /** Request number → id, for every 200. */
  accepted: Map<number, string>;
  requests: number;
  /** Requests still open when the kill signal was sent. */
  inFlightAtKill: number;
  /** Requests that ended in a network error once the kill was sent: cut off by the crash (one per worker at least). */
  cutOff: number;
  /** Anything else (a non-200 status, an error before the kill). */
  unexpected: string[];
  exitSignal: NodeJS.Signals | null;
}

/** Sends until OKS_BEFORE_KILL 200s are in, then SIGKILLs the server mid-burst. */
async function burstAndKill(server: ServerProcess): Promise<Burst> {
  const v1 = api(server.url, 'bulk-key');
  const burst: Burst = { accepted: new Map(), requests: 0, inFlightAtKill: 0, cutOff: 0, unexpected: [], exitSignal: null };
  let killed = false;
  let inFlight = 0;
  let exited: Promise<unknown> = Promise.resolve();

  // Each worker sends until the server is gone: the kill lands while requests are being
  // answered (the server answers a turn's sends together, so stopping at the kill signal could
  // leave none open by the time the process died; a 200 that comes after the signal counts as
  // accepted, and must survive like the others).
  const worker = async () => {
    while (burst.unexpected.length === 0 && burst.requests < MAX_REQUESTS) {
      const i = burst.requests++;
      inFlight++;
      try {
        const res = await read(await send(v1, plan(i)));
        if (res.status === 200 && typeof (res.body as { id?: unknown }).id === 'string' && Object.keys(res.body as object).length === 1) {
          burst.accepted.set(i, (res.body as { id: string }).id);
        } else {
          burst.unexpected.push(`request ${i}: ${res.status} ${res.text}`);
        }
      } catch (error) {
        if (!killed) burst.unexpected.push(`request ${i} before the kill: ${String(error)} ${String((error as Error).cause ?? '')}`);
        else {
          burst.cutOff++;
          break;
        }
      } finally {
        inFlight--;
      }
      if (!killed && burst.accepted.size >= OKS_BEFORE_KILL) {
        killed = true;
        burst.inFlightAtKill = inFlight;
        exited = server.stop('SIGKILL');
      }
    }
  };
  await Promise.all(Array.from({ length: WORKERS }, worker));
  await exited;
  burst.exitSignal = server.child.signalCode;
  return burst;
}

/**
 * Every segment and meta file parses, and start-up set nothing aside as damaged but, at most, a
 * torn last line per file: Linux stops a write(2) of more than a page at a page boundary when a
 * fatal signal comes, so a SIGKILL can cut the line being appended (a record nobody was answered
 * for, or a compaction's move whose older line still stands); start-up drops it and keeps its
 * bytes in damaged/, saying so. A damaged line anywhere else, or a pack entry failing its
 * checksum, is a defect.
 */
async function expectWholeStore(dataDir: string, server: ServerProcess): Promise<void> {
  const jsonFiles = (await jsonFilesUnder(dataDir)).filter((file) => !file.endsWith('.tmp') && path.relative(dataDir, file).split(path.sep)[0] !== 'damaged');
  expect(jsonFiles.length).toBeGreaterThan(0);
  for (const jsonFile of jsonFiles) {
    const text = await readFile(jsonFile, 'utf8');
    expect(() => JSON.parse(text), `${path.relative(dataDir, jsonFile)} is not valid JSON`).not.toThrow();
  }
  const setAside = await readdir(path.join(dataDir, 'damaged')).catch(() => [] as string[]);
  const torn = server.output().match(/a torn last line \(a write cut short, by a crash or otherwise\) was dropped/g) ?? [];
  expect(setAside.length, server.output()).toBe(torn.length);
  expect(server.output()).not.toMatch(/damaged lines|failed the checksum/);
}

async function expectNoUploadsLeft(dataDir: string): Promise<void> {
  const left = await readdir(path.join(dataDir, 'tmp')).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'ENOENT') return [] as string[];
    throw error;
  });
  expect(left).toEqual([]);
}

describe('SIGKILL in the middle of a burst of sends', () => {
  it('loses no accepted email, tears no JSON file and never reuses an id', async () => {
    const dataDir = await tracker.tempDir('pigeonhole-crash-');
    const first = await tracker.spawn({ dataDir });
    const burst = await burstAndKill(first);

    // The kill landed while the burst went on: requests were open when it was sent, and every
    // worker was still sending when the server died (its last request cut off).
    expect(burst.unexpected).toEqual([]);
    expect(burst.exitSignal).toBe('SIGKILL');
    expect(burst.accepted.size).toBeGreaterThanOrEqual(OKS_BEFORE_KILL);
    expect(burst.inFlightAtKill).toBeGreaterThan(0);
    expect(burst.cutOff).toBe(WORKERS);
    expect(burst.requests).toBe(burst.accepted.size + burst.cutOff);
    const acceptedIds = [...burst.accepted.values()];
    expect(new Set(acceptedIds).size).toBe(acceptedIds.length);

    const second = await tracker.spawn({ dataDir });
    // A crash can cut an append short: start-up trims such a tail (nothing in it was answered)
    // and never finds a damaged line; every segment is a whole JSON document again.
    await expectWholeStore(dataDir, second);
    const v1 = api(second.url, 'bulk-key');
    // Uploads of the requests the crash cut off are not kept.
    await expectNoUploadsLeft(dataDir);

    const failures: string[] = [];
    await inParallel([...burst.accepted], WORKERS, async ([i, id]) => {
      const p = plan(i);
      const detail = await read(await v1.get(`/v1/email/detail/${id}/`));
      if (detail.status !== 200) return void failures.push(`detail ${id} (request ${i}): ${detail.status} ${detail.text}`);
      expect(detail.body).toEqual({ recipient: p.recipient, subject: p.subject, created_on: expect.stringMatching(WIRE_TIME), body: p.body });

      const capture = await read(await fetch(`${second.url}/api/messages/${id}`));
      if (capture.status !== 200) return void failures.push(`capture ${id} (request ${i}): ${capture.status} ${capture.text}`);
      const c = capture.body as Record<string, unknown>;
      expect({
        id: c.id,
        recipient: c.recipient,
        to: c.to,
        subject: c.subject,
        html: c.html,
        text: c.text_derived ? null : c.text,
        attachments: c.attachments,
      }).toEqual({
        id,
        recipient: p.recipient,
        to: [p.recipient],
        subject: p.subject,
        html: p.body,
        // The stored plain part (a capture without one answers its HTML rendered as text, text_derived).
        text: p.plain,
        attachments: p.attachments.map((a, index) => ({
          filename: a.filename,
          content_type: a.contentType,
          size: a.bytes.length,
          content_id: null,
          url: `/api/messages/${id}/attachments/${index}`,
        })),
      });
      for (const [index, a] of p.attachments.entries()) {
        const res = await fetch(`${second.url}/api/messages/${id}/attachments/${index}`);
        expect(res.status).toBe(200);
        const bytes = Buffer.from(await res.arrayBuffer());
        expect(bytes.length).toBe(a.bytes.length);
        expect(bytes.equals(a.bytes), `attachment ${index} of ${id} differs`).toBe(true);
      }
    });
    expect(failures).toEqual([]);

    const before = await allMessages(second.url);
    expect(before.total).toBe(before.messages.length);
    expect(before.total).toBeGreaterThanOrEqual(burst.accepted.size);
    const listed = new Set(before.messages.map((m) => m.id));
    expect(acceptedIds.filter((id) => !listed.has(id))).toEqual([]);

    // New sends after the restart get ids never seen before, and are kept like the others.
    const earlier = new Set([...acceptedIds, ...listed]);
    const fresh: string[] = [];
    await inParallel(
      Array.from({ length: 24 }, (_, k) => 1_000_000 + k),
      WORKERS,
      async (i) => {
        const res = await read(await send(v1, plan(i)));
        expect(res.status).toBe(200);
        fresh.push((res.body as { id: string }).id);
      },
    );
    expect(fresh.filter((id) => earlier.has(id))).toEqual([]);
    expect(new Set(fresh).size).toBe(fresh.length);
    const after = await allMessages(second.url);
    expect(after.total).toBe(before.total + fresh.length);
    await expectNoUploadsLeft(dataDir);
  });
});

describe('SIGKILL while a pack is being compacted', () => {
  it('keeps every capture that was not deleted, whole, and every deletion', async () => {
    const dataDir = await tracker.tempDir('pigeonhole-crash-compact-');
    const first = await tracker.spawn({ dataDir, args: ['--max-messages', '0'] });
    const v1 = api(first.url, 'bulk-key');
    // About 10 MB of bodies: the first 8 MB pack is sealed full, the second is being written.
    const body = (i: number) => `<p>${`capture ${i} `.repeat(220)}</p>`;
    const ids: string[] = [];
    await inParallel(
      Array.from({ length: 4000 }, (_, i) => i),
      WORKERS,
      async (i) => {
        const res = await read(await v1.post('/v1/email/send/', { recipient: `c${i}@example.com`, subject: `Compact ${i}`, body: body(i) }));
        expect(res.status).toBe(200);
        ids[i] = (res.body as { id: string }).id;
      },
    );
    expect(await first.stop('SIGTERM')).toBe(0);
    const packs = path.join(dataDir, 'packs');
    expect((await readdir(packs)).filter((f) => f.endsWith('.pack')).sort()).toEqual(['000001.pack', '000002.pack']);

    // Restarted with a cap of 1,200: start-up prunes the 2,800 oldest, which leaves the first
    // pack mostly dead, and compaction starts copying its live captures into the second.
    const active = path.join(packs, '000002.pack');
    const sizeBefore = (await stat(active)).size;
    const second = await tracker.spawn({ dataDir, args: ['--max-messages', '1200'] });
    // Polled tightly so the kill lands while compaction is copying, not after it.
    await vi.waitFor(
      async () => {
        if ((await stat(active)).size === sizeBefore) throw new Error(`compaction did not start:\n${second.output()}`);
      },
      { timeout: 20_000, interval: 2 },
    );
    await second.stop('SIGKILL');
    expect(second.child.signalCode).toBe('SIGKILL');

    const third = await tracker.spawn({ dataDir, args: ['--max-messages', '1200'] });
    await expectWholeStore(dataDir, third);
    const listed = await allMessages(third.url);
    expect(listed.total).toBe(1200);
    // Retention keeps the 1,200 newest by capture order, which parallel sends need not have
    // taken in the order they were made (a later request can be stored first).
    const byCapture = [...ids].sort((a, b) => decodeId(a)! - decodeId(b)!);
    const kept = byCapture.slice(2800);
    expect(new Set(listed.messages.map((m) => m.id))).toEqual(new Set(kept));
    const failures: string[] = [];
    await inParallel(kept, WORKERS, async (id) => {
      const i = ids.indexOf(id);
      const res = await fetch(`${third.url}/api/messages/${id}/html`);
      const html = await res.text();
      if (res.status !== 200 || html.indexOf(body(i)) < 0) failures.push(`${id} (capture ${i}): ${res.status}`);
    });
    expect(failures).toEqual([]);
    for (const id of byCapture.slice(0, 2800).filter((_, k) => k % 100 === 0)) expect((await fetch(`${third.url}/api/messages/${id}`)).status).toBe(404);
    // 4,000 sends and three starts of the real server: 13 s alone on this machine, over 30 s
    // beside the rest of the suite on two busy cores.
  }, 120_000);
});
