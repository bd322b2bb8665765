/** Something the flusher can write: a lowdb database whose data changed. */
export interface Writable {
  write(): Promise<void>;
}

/**
 * Group commit. Changes are made in memory and the file that holds them is marked dirty;
 * `flush()` resolves once a write that started after the call has put every dirty file on
 * disk. Requests that arrive while a write is running share the next one, so a burst of N
 * sends costs a handful of file writes, not N.
 */
export class Flusher {
  private dirty = new Set<Writable>();
  private running: Promise<void> | null = null;
  private queued: Promise<void> | null = null;

  markDirty(file: Writable): void {
    this.dirty.add(file);
  }

  /** Drops a file from the next write (its file is being deleted instead). */
  forget(file: Writable): void {
    this.dirty.delete(file);
  }

  get pending(): number {
    return this.dirty.size;
  }

  flush(): Promise<void> {
    if (this.queued) return this.queued;
    if (!this.running) return this.start();
    const after = this.running.catch(() => undefined);
    this.queued = after.then(() => {
      this.queued = null;
      return this.start();
    });
    return this.queued;
  }

  private start(): Promise<void> {
    const batch = [...this.dirty];
    this.dirty.clear();
    const run = Promise.all(batch.map((file) => file.write())).then(
      () => undefined,
      (error: unknown) => {
        // Nothing written is assumed durable: the next flush tries these files again.
        for (const file of batch) this.dirty.add(file);
        throw error;
      },
    );
    this.running = run;
    run.then(
      () => this.clearRunning(run),
      () => this.clearRunning(run),
    );
    return run;
  }

  private clearRunning(run: Promise<void>): void {
    if (this.running === run) this.running = null;
  }
}
