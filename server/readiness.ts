/**
 * What /readyz answers: a registry of named checks the entry point fills (storage, the HTTP
 * listener, the SMTP listener) and a stopping flag set at shutdown. Ready only when every check
 * passes and the process is not stopping.
 */
export class Readiness {
  private readonly checks = new Map<string, () => boolean>();
  private stoppingSince: Date | null = null;

  /** Adds (or replaces) a named check; it is called on every /readyz. */
  add(name: string, check: () => boolean): void {
    this.checks.set(name, check);
  }

  /** From now on the process is not ready: it is shutting down. */
  stop(): void {
    this.stoppingSince ??= new Date();
  }

  get stopping(): boolean {
    return this.stoppingSince !== null;
  }

  /** Each check's result, in the order they were added; a check that throws fails. */
  report(): { ready: boolean; stopping: boolean; checks: Record<string, boolean> } {
    const checks: Record<string, boolean> = {};
    for (const [name, check] of this.checks) {
      try {
        checks[name] = check() === true;
      } catch {
        checks[name] = false;
      }
    }
    const stopping = this.stopping;
    return { ready: !stopping && Object.values(checks).every(Boolean), stopping, checks };
  }
}
