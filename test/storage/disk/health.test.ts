import { describe, expect, it } from 'vitest';
import { storageError } from '../../../server/storage/errors.ts';
import { StorageHealth } from '../../../server/storage/disk/health.ts';

/**
 * The storage health's log: one line when writes start failing for a cause, none for the writes
 * refused after it for the same cause (a sender retrying must not flood the log), one when they
 * work again. The real process's lines are tested in read-only.test.ts.
 */

const errno = (code: string) => Object.assign(new Error(`${code}: injected`), { code });

describe('StorageHealth', () => {
  it('logs once per cause, again for another cause, and once when writes work again', () => {
    const lines: string[] = [];
    const health = new StorageHealth((line) => lines.push(line));
    for (const dir of ['packs', 'messages', 'recipients', 'packs']) health.failed(storageError(errno('EROFS'), `/data/${dir}`));
    expect(health.state).toBe('read-only');
    health.failed(storageError(errno('ENOSPC'), '/data/packs'));
    health.failed(storageError(errno('ENOSPC'), '/data/meta.json'));
    health.recovered();
    health.recovered();
    // Another error code is another cause; the same code on another file is not.
    health.failed(storageError(errno('EIO'), '/data/packs'));
    health.failed(storageError(errno('EIO'), '/data/messages'));
    health.failed(storageError(errno('EBADF'), '/data/messages'));
    expect(lines).toEqual([
      'pigeonhole: writes fail: the file system is read-only (/data/packs); every write is refused (HTTP 507, SMTP 452) and /readyz is not ready until it works again: make the data directory writable, Pigeonhole picks it up by itself',
      'pigeonhole: writes fail: the disk is full (/data/packs); every write is refused (HTTP 507, SMTP 452) and /readyz is not ready until it works again: free space (delete captures, or lower --max-messages), Pigeonhole picks it up by itself',
      'pigeonhole: writes work again (2 writes failed while the disk is full, /data/meta.json); storing as usual',
      'pigeonhole: writes fail: EIO error: EIO: injected (/data/packs); every write is refused (HTTP 507, SMTP 452) and /readyz is not ready until it works again: fix the cause, Pigeonhole picks it up by itself',
      'pigeonhole: writes fail: EBADF error: EBADF: injected (/data/messages); every write is refused (HTTP 507, SMTP 452) and /readyz is not ready until it works again: fix the cause, Pigeonhole picks it up by itself',
    ]);
    // Every failure is counted (metrics), logged or not.
    expect(health.failures).toEqual({ full: 2, 'read-only': 4, missing: 0, error: 3 });
  });

  it('counts but does not log once silenced (a closing store reports what it left unsaved itself)', () => {
    const lines: string[] = [];
    const health = new StorageHealth((line) => lines.push(line));
    health.silence();
    health.failed(storageError(errno('EROFS'), '/data/meta.json'));
    expect(lines).toEqual([]);
    expect(health.failures['read-only']).toBe(1);
  });
});
