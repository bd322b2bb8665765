/**
 * Memory per recipient (issue 21): builds a store with `--count` recipients in this process,
 * through the domain (Recipients.applyUndoably, as every /v1 send does, flushed every 1,024), and
 * prints what the recipients cost after a full GC: V8's heap plus memory outside it (`external`,
 * which includes the typed arrays' `arrayBuffers`), per recipient,
 *
 *   1. in the process that ingested them (the index, the segment logs' offsets, the read cache);
 *   2. after the store is opened again on the same directory (a restart);
 *   3. the old representation on the same directory, as the ceiling: every record whole in a
 *      Collection (a Map and an ordered array) plus the domain's Map of lookup keys.
 *
 *   node --expose-gc --import tsx bench/recipient-memory.ts --count 1000000 [--names] [--keep]
 *
 * `--names` gives every recipient a first and last name (as a send with first_name does) and
 * every tenth one a flag. Memory measures hold while the machine is busy; the times printed
 * are for orientation only.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { parseArgs } from 'node:util';
import { Recipients } from '../server/domain/directory/recipients.ts';
import { emailKey } from '../server/domain/email-address.ts';
import { SandboxClock } from '../server/domain/time/clock.ts';
import { Scheduler } from '../server/domain/time/scheduler.ts';
import { Collection } from '../server/storage/segments/collection.ts';
import { nodeFs } from '../server/storage/disk/fs.ts';
import { Quarantine } from '../server/storage/disk/quarantine.ts';
import type { RecipientRecord } from '../server/storage/records.ts';
import { openStore, type OpenStore } from '../server/storage/open-store.ts';

const { values } = parseArgs({
  options: {
    count: { type: 'string', default: '100000' },
    names: { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
  },
});
const count = Number(values.count);
if (!Number.isSafeInteger(count) || count <= 0) throw new Error('--count takes a positive whole number');
const gc = (globalThis as { gc?: () => void }).gc;
if (!gc) throw new Error('run with node --expose-gc');

interface Measure {
  heap: number;
  external: number;
  arrayBuffers: number;
  rss: number;
}

/**
 * After a full collection: several, with turns of the event loop between them (the memory of a
 * typed array no longer used is given back only after a turn).
 */
async function measure(): Promise<Measure> {
  for (let i = 0; i < 4; i++) {
    gc!();
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const m = process.memoryUsage();
  return { heap: m.heapUsed, external: m.external, arrayBuffers: m.arrayBuffers, rss: m.rss };
}

const MB = 1024 * 1024;
const rows: string[][] = [];
function report(what: string, before: Measure, after: Measure): number {
  const heap = (after.heap - before.heap) / count;
  const external = (after.external - before.external) / count;
  const arrayBuffers = (after.arrayBuffers - before.arrayBuffers) / count;
  const total = heap + external;
  rows.push([
    what,
    heap.toFixed(1),
    external.toFixed(1),
    arrayBuffers.toFixed(1),
    total.toFixed(1),
    ((total * count) / MB).toFixed(1),
    (after.rss / MB).toFixed(0),
  ]);
  return total;
}

const dataDir = await mkdtemp(path.join(tmpdir(), 'pigeonhole-recipient-memory-'));
const open = () => openStore({ dataDir, reserveSize: 0, probeIntervalMs: 60_000, log: () => undefined });
const team = 'acme';
const emailOf = (n: number) => `user-${n}@example.com`;

try {
  // 1. Ingest through the domain.
  let store: OpenStore | null = await open();
  const empty = await measure();
  const clock = new SandboxClock();
  const scheduler = new Scheduler(clock, () => undefined);
  let recipients: Recipients | null = new Recipients(store, clock, scheduler, () => undefined);
  const started = performance.now();
  for (let n = 1; n <= count; n++) {
    const change = values.names ? { firstName: 'Ada', lastName: `Lovelace ${n}`, flags: n % 10 === 0 ? ['vip'] : [], sent: true } : { sent: true };
    recipients.applyUndoably(team, emailOf(n), change);
    if (n % 1024 === 0) await store.flush();
  }
  await store.flush();
  const ingestMs = performance.now() - started;
  if (store.recipients.size !== count) throw new Error(`stored ${store.recipients.size} recipients, not ${count}`);
  const ingested = await measure();
  const indexBytes = store.recipients.indexBytes;
  const ingesting = report('compact index, the ingesting process', empty, ingested);

  // A lookup and a page, to be sure the figures are of a working store.
  if (recipients.find(team, emailOf(Math.ceil(count / 2)).toUpperCase())?.email !== emailOf(Math.ceil(count / 2))) throw new Error('lookup failed');
  const searchStarted = performance.now();
  const found = recipients.search({ q: `user-${count}@` }, 0, 10).total;
  const searchMs = performance.now() - searchStarted;
  await scheduler.close();
  await store.close();
  store = null;
  recipients = null;

  // 2. Opened again.
  const closed = await measure();
  const openStarted = performance.now();
  store = await open();
  const openMs = performance.now() - openStarted;
  const reopened = report('compact index, after a restart', closed, await measure());
  await store.close();
  store = null;

  // 3. The old representation, same records.
  const before = await measure();
  const quarantine = new Quarantine(dataDir, nodeFs, () => undefined);
  let collection: Collection<RecipientRecord> | null = await Collection.open<RecipientRecord>({
    dir: path.join(dataDir, 'recipients'),
    segmentSize: 1024,
    fs: nodeFs,
    fsync: false,
    quarantine,
  });
  let keys: Map<string, RecipientRecord> | null = new Map();
  for (const record of collection.all()) keys.set(`${record.team}\u0000${emailKey(record.email)}`, record);
  const old = report('whole records (old: Collection + key Map)', before, await measure());
  await collection.storage.close();
  collection = null;
  keys = null;

  console.log(`recipients: ${count.toLocaleString('en')}${values.names ? ' (with names, a tenth with a flag)' : ''}; Node ${process.version}`);
  console.log(
    `ingest ${(ingestMs / 1000).toFixed(1)} s; open again ${(openMs / 1000).toFixed(1)} s; a search over all ${searchMs.toFixed(0)} ms (${found} found); the index's own arrays and texts: ${(indexBytes / count).toFixed(1)} B per recipient`,
  );
  const head = ['', 'heap B', 'external B', '(arrayBuffers B)', 'total B', 'total MB', 'RSS MB'];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ');
  console.log(line(head));
  for (const row of rows) console.log(line(row));
  console.log(`old / new: ${(old / ingesting).toFixed(1)}x (ingesting), ${(old / reopened).toFixed(1)}x (after a restart)`);
} finally {
  if (values.keep) console.log(`kept ${dataDir}`);
  else await rm(dataDir, { recursive: true, force: true });
}
