import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { Recipients } from '../../../server/domain/directory/recipients.ts';
import { SandboxClock } from '../../../server/domain/time/clock.ts';
import { Scheduler } from '../../../server/domain/time/scheduler.ts';
import { nodeFs, type Fs } from '../../../server/storage/disk/fs.ts';
import { openStore, type OpenStore } from '../../../server/storage/open-store.ts';

const dirs: string[] = [];
const closers: (() => Promise<void>)[] = [];
afterEach(async () => {
  await Promise.all(closers.splice(0).map((close) => close().catch(() => undefined)));
  await Promise.all(dirs.splice(0).map((d) => rm(d, { recursive: true, force: true })));
});

/** Writes fail (a full disk) while `full` is set. */
function fullDisk() {
  const state = { full: false };
  const fs: Fs = {
    ...nodeFs,
    writeAt: async (handle, buffers, position) => {
      if (state.full) throw Object.assign(new Error('ENOSPC: injected'), { code: 'ENOSPC' });
      return nodeFs.writeAt(handle, buffers, position);
    },
  };
  return { fs, state };
}

async function sandbox(dir: string, fs: Fs = nodeFs): Promise<{ store: OpenStore; recipients: Recipients; clock: { ms: number } }> {
  // Nothing is kept parsed: every record is read from its segment each time.
  const store = await openStore({ dataDir: dir, fs, reserveSize: 0, probeIntervalMs: 60_000, log: () => undefined, recipients: { cacheBytes: 0 } });
  const clock = { ms: Date.UTC(2030, 0, 1) };
  const sandboxClock = new SandboxClock(() => clock.ms);
  const scheduler = new Scheduler(sandboxClock, () => undefined);
  closers.push(async () => {
    await scheduler.close();
    await store.close();
  });
  return { store, recipients: new Recipients(store, sandboxClock, scheduler, () => undefined), clock };
}

const fields = (r: { email: string; firstName: string; lastName: string; flags: string[]; hasBeenSentEmail: boolean; updatedAt: string } | undefined) =>
  r && { email: r.email, firstName: r.firstName, lastName: r.lastName, flags: r.flags, hasBeenSentEmail: r.hasBeenSentEmail, updatedAt: r.updatedAt };

describe('recipients changed by a send whose write is refused', () => {
  it('are put back as they were (a new one removed), with no record kept parsed: each was read from its segment for the change', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'pigeonhole-recipients-undo-'));
    dirs.push(dir);
    const disk = fullDisk();
    const { store, recipients, clock } = await sandbox(dir, disk.fs);
    await recipients.upsert('acme', 'ada@example.com', { firstName: 'Ada', flags: ['old'] });
    await recipients.upsert('acme', 'grace@example.com', { firstName: 'Grace' });
    const before = fields(recipients.find('acme', 'ada@example.com'));

    clock.ms += 1000;
    disk.state.full = true;
    const undoAda = recipients.applyUndoably('acme', 'ADA@example.com', { firstName: 'Changed', flags: ['new'], sent: true }).undo;
    const undoNew = recipients.applyUndoably('acme', 'new@example.com', { firstName: 'New', sent: true }).undo;
    await expect(store.flush()).rejects.toThrow(/disk is full/);
    // Lists and lookups meanwhile see the change: a record whose line is not written stays in memory.
    expect(recipients.page('acme', {}, 0, 10).total).toBe(3);
    expect(recipients.find('acme', 'ada@example.com')?.firstName).toBe('Changed');
    undoNew();
    undoAda();

    expect(fields(recipients.find('acme', 'ada@example.com'))).toEqual(before);
    expect(recipients.find('acme', 'new@example.com')).toBeUndefined();
    expect(recipients.search({ q: 'new' }, 0, 10).total).toBe(0);
    expect(recipients.page('acme', { flag: 'new' }, 0, 10).total).toBe(0);
    disk.state.full = false;
    await store.flush();
    await store.close();

    const again = await sandbox(dir);
    expect(fields(again.recipients.find('acme', 'ada@example.com'))).toEqual(before);
    expect(again.recipients.find('acme', 'new@example.com')).toBeUndefined();
    expect(again.recipients.page('acme', {}, 0, 10).items.map((r) => r.email)).toEqual(['grace@example.com', 'ada@example.com']);
  });

  it('keep a change made after theirs (another send, the API): only the latest change may be undone', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'pigeonhole-recipients-undo-'));
    dirs.push(dir);
    const disk = fullDisk();
    const { store, recipients } = await sandbox(dir, disk.fs);
    await recipients.upsert('acme', 'ada@example.com', { firstName: 'Ada' });

    disk.state.full = true;
    const undo = recipients.applyUndoably('acme', 'ada@example.com', { firstName: 'First', sent: true }).undo;
    recipients.apply('acme', 'ada@example.com', { lastName: 'Second' });
    await expect(store.flush()).rejects.toThrow(/disk is full/);
    undo();
    expect(recipients.find('acme', 'ada@example.com')).toMatchObject({ firstName: 'First', lastName: 'Second' });

    // Removed meanwhile (a reset): the undo does not bring it back.
    const undoRemoved = recipients.applyUndoably('acme', 'ada@example.com', { firstName: 'Third' }).undo;
    expect(recipients.removeAll('acme')).toBe(1);
    undoRemoved();
    expect(recipients.find('acme', 'ada@example.com')).toBeUndefined();
    disk.state.full = false;
    await store.flush();
  });
});
