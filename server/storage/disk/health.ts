import type { StorageError, StorageProblem } from '../errors.ts';

/**
 * Whether the store can write now, and why not: /readyz reads it, /metrics counts the failed
 * writes, and the store's own probe clears it once a write succeeds again. The log gets one
 * line when writes start failing for a cause (not one per refused request: a sender retrying
 * against a read-only disk must not flood it), and one when they work again.
 */
export class StorageHealth {
  private current: StorageError | null = null;
  /** Writes refused since the current cause began. */
  private refused = 0;
  /** Closing: the store's close says in one line what a failed write left unsaved. */
  private quiet = false;
  private readonly listeners = new Set<(error: StorageError) => void>();
  readonly failures: Record<StorageProblem, number> = { full: 0, 'read-only': 0, missing: 0, error: 0 };

  constructor(private readonly log: (line: string) => void = () => undefined) {}

  get problem(): StorageError | null {
    return this.current;
  }

  /** "ok", "full", "read-only", "missing" or "error: <what>", as /readyz shows it. */
  get state(): string {
    const problem = this.current;
    if (!problem) return 'ok';
    return problem.problem === 'error' ? `error: ${problem.reason}` : problem.problem;
  }

  /**
   * A write failed. Logged when its cause differs from the one already known (`line`: what to
   * log instead of the usual line, for start-up's own).
   */
  failed(error: StorageError, line?: string): void {
    const known = this.current !== null && causeOf(this.current) === causeOf(error);
    this.current = error;
    this.refused = known ? this.refused + 1 : 1;
    this.failures[error.problem]++;
    if (!known && !this.quiet) this.log(line ?? refusalLine(error));
    for (const listener of this.listeners) listener(error);
  }

  recovered(): void {
    const was = this.current;
    if (!was) return;
    this.current = null;
    this.log(`pigeonhole: writes work again (${plural(this.refused, 'write')} failed while ${was.reason}, ${was.path}); storing as usual`);
  }

  /** From now on failures are counted, not logged (the store is closing and reports them itself). */
  silence(): void {
    this.quiet = true;
  }

  /** Called with every failed write (metrics). Returns an unsubscribe function. */
  onFailure(listener: (error: StorageError) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}

/** What makes two failures the same cause: the problem, and for other errors their code (not the file). */
function causeOf(error: StorageError): string {
  return error.problem === 'error' ? `error:${error.code ?? error.reason}` : error.problem;
}

/** The one line logged when writes start failing for a cause: what, where, and the way out. */
function refusalLine(error: StorageError): string {
  const remedy =
    error.problem === 'full'
      ? 'free space (delete captures, or lower --max-messages)'
      : error.problem === 'read-only'
        ? 'make the data directory writable'
        : error.problem === 'missing'
          ? 'make the data directory available again'
          : 'fix the cause';
  return `pigeonhole: writes fail: ${error.reason} (${error.path}); every write is refused (HTTP 507, SMTP 452) and /readyz is not ready until it works again: ${remedy}, Pigeonhole picks it up by itself`;
}

function plural(count: number, one: string): string {
  return `${count} ${count === 1 ? one : `${one}s`}`;
}
