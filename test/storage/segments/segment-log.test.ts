import path from 'node:path';
import { describe, expect } from 'vitest';
import { nodeFs } from '../../../server/storage/disk/fs.ts';
import { Quarantine } from '../../../server/storage/disk/quarantine.ts';
import { SegmentLog } from '../../../server/storage/segments/segment-log.ts';
import { test as it } from '../../support/fixtures.ts';

type Row = { seq: number; name: string };

async function openLog(dir: string): Promise<{ log: SegmentLog<Row>; rows: Row[] }> {
  const rows: Row[] = [];
  const options = { dir: path.join(dir, 'rows'), segmentSize: 8, fs: nodeFs, fsync: false, quarantine: new Quarantine(dir, nodeFs, () => undefined) };
  const log = await SegmentLog.open<Row>(options, (row) => rows.push(row));
  return { log, rows };
}

// A record forgotten while a group commit is writing it: a refused send's new recipient, taken
// into a commit (a retry, another request's) before the send heard its own write fail.
describe('a segment log forgetting a record whose line is being written', () => {
  it('drops the line when that write fails: nothing is left to write, nothing unsaved', async ({ tempDir }) => {
    const { log } = await openLog(tempDir);
    log.put({ seq: 1, name: 'refused' });
    const batch = log.begin()!;
    log.forget(1);
    batch.abort();
    expect(await log.unsaved()).toBe(0);
    expect(log.begin()).toBeNull();
  });

  it('follows a write that succeeds with the tombstone: after a restart the record is gone', async ({ tempDir }) => {
    const { log } = await openLog(tempDir);
    log.put({ seq: 1, name: 'kept' });
    log.put({ seq: 2, name: 'refused' });
    const batch = log.begin()!;
    log.forget(2);
    await batch.write();
    batch.commit();
    const tombstone = log.begin()!;
    await tombstone.write();
    tombstone.commit();
    await log.close();
    const { rows } = await openLog(tempDir);
    expect(rows).toEqual([{ seq: 1, name: 'kept' }]);
  });
});
