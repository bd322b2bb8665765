import path from 'node:path';
import { Low, type Adapter } from 'lowdb';
import type { Batch, Participant } from './flusher.ts';
import type { Fs } from './fs.ts';
import type { Quarantine } from './quarantine.ts';
import { syncDir } from './fs.ts';

/**
 * lowdb's adapter for a small whole-file JSON document (meta.json, blocks.json), written
 * atomically: a temporary file renamed over the old one (fsync'd first with --fsync), so the
 * file on disk is always the old or the new version, never a torn one.
 */
class AtomicJsonAdapter<T> implements Adapter<T> {
  constructor(
    private readonly file: string,
    private readonly fs: Fs,
    private readonly fsync: boolean,
    private readonly quarantine: Quarantine,
  ) {}

  async read(): Promise<T | null> {
    const bytes = await this.fs.readFile(this.file).catch((error: NodeJS.ErrnoException) => {
      if (error.code === 'ENOENT') return null;
      throw error;
    });
    if (bytes === null) return null;
    try {
      return JSON.parse(bytes.toString('utf8')) as T;
    } catch {
      await this.quarantine.keep(this.file, bytes, 1, 'the file does not parse (started from its defaults)');
      return null;
    }
  }

  async write(data: T): Promise<void> {
    const temp = `${this.file}.tmp`;
    const handle = await this.fs.open(temp, 'w');
    try {
      await this.fs.writeAt(handle, [Buffer.from(JSON.stringify(data))], 0);
      if (this.fsync) await handle.sync();
    } finally {
      await handle.close();
    }
    await this.fs.rename(temp, this.file);
    if (this.fsync) await syncDir(this.fs, path.dirname(this.file));
  }
}

/**
 * A small JSON document kept in memory and written with the group commit when it changed
 * (`touch`), or at most `lazyMs` later for changes that can be recovered after a crash
 * (`touchLazily`: id counters and daily counts, which start-up also derives from the records).
 */
export class JsonFile<T> implements Participant {
  private dirty = false;
  private lazy = false;
  /** Each top-level field as last read or written (JSON), to say what a failed write left unsaved. */
  private saved: Record<string, string>;

  private constructor(
    private readonly db: Low<T>,
    readonly file: string,
  ) {
    this.saved = fields(db.data);
  }

  static async open<T>(file: string, initial: T, options: { fs: Fs; fsync: boolean; quarantine: Quarantine }): Promise<JsonFile<T>> {
    const db = new Low<T>(new AtomicJsonAdapter<T>(file, options.fs, options.fsync, options.quarantine), initial);
    await db.read();
    return new JsonFile(db, file);
  }

  get data(): T {
    return this.db.data;
  }

  set data(value: T) {
    this.db.data = value;
  }

  touch(): void {
    this.dirty = true;
  }

  touchLazily(): void {
    this.lazy = true;
  }

  /** Whether a lazy change waits to be written. */
  get lazyPending(): boolean {
    return this.lazy;
  }

  begin({ unlinking }: { unlinking: boolean }): Batch | null {
    // Before files are deleted, the counters they held must be safe here (ids never repeat).
    if (!this.dirty && !(this.lazy && unlinking)) return null;
    const wasLazy = this.lazy;
    this.dirty = false;
    this.lazy = false;
    let written: Record<string, string> | null = null;
    return {
      path: this.file,
      write: async () => {
        written = fields(this.db.data);
        await this.db.write();
      },
      revert: async () => undefined,
      commit: () => {
        if (written) this.saved = written;
      },
      abort: () => {
        this.dirty = true;
        this.lazy ||= wasLazy;
      },
    };
  }

  /** Writes now, whatever changed (shutdown, the lazy timer). */
  force(): void {
    if (this.lazy) this.dirty = true;
  }

  /** The top-level fields that differ from what the file holds (a write of them failed, or none was made yet). */
  unsavedFields(): string[] {
    const now = fields(this.db.data);
    return [...new Set([...Object.keys(now), ...Object.keys(this.saved)])].filter((key) => now[key] !== this.saved[key]);
  }
}

function fields(data: unknown): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, value] of Object.entries((data ?? {}) as Record<string, unknown>)) out[key] = JSON.stringify(value);
  return out;
}
