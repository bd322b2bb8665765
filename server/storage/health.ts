import type { StorageError, StorageProblem } from './errors.ts';

/**
 * Whether the store can write now, and why not: /readyz reads it, /metrics counts the failed
 * writes, and the store's own probe clears it once a write succeeds again.
 */
export class StorageHealth {
  private current: StorageError | null = null;
  private readonly listeners = new Set<(error: StorageError) => void>();
  readonly failures: Record<StorageProblem, number> = { full: 0, 'read-only': 0, missing: 0, error: 0 };

  get problem(): StorageError | null {
    return this.current;
  }

  /** "ok", "full", "read-only", "missing" or "error: <what>", as /readyz shows it. */
  get state(): string {
    const problem = this.current;
    if (!problem) return 'ok';
    return problem.problem === 'error' ? `error: ${problem.reason}` : problem.problem;
  }

  failed(error: StorageError): void {
    this.current = error;
    this.failures[error.problem]++;
    for (const listener of this.listeners) listener(error);
  }

  recovered(): void {
    this.current = null;
  }

  /** Called with every failed write (metrics). Returns an unsubscribe function. */
  onFailure(listener: (error: StorageError) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
