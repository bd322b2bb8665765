/**
 * What /readyz answers: a registry of named checks the entry point fills (storage, the HTTP
 * listener, the SMTP listener) and a stopping flag set at shutdown. Ready only when every check
 * passes and the process is not stopping.
 */
export class Readiness {
  private readonly checks = new Map<string, () => boolean | string>();
  private stoppingSince: Date | null = null;

  /**
   * Adds (or replaces) a named check; it is called on every /readyz. It answers true (or "ok")
   * when all is well, false, or a short word for what is wrong ("full", "read-only").
   */
  add(name: string, check: () => boolean | string): void {
    this.checks.set(name, check);
  }

  /** From now on the process is not ready: it is shutting down. */
  stop(): void {
    this.stoppingSince ??= new Date();
  }

  get stopping(): boolean {
    return this.stoppingSince !== null;
  }

  /** Each check's state ("ok", "down" or what the check said), in order; a check that throws is down. */
  report(): { ready: boolean; stopping: boolean; checks: Record<string, string> } {
    const checks: Record<string, string> = {};
    for (const [name, check] of this.checks) {
      let result: boolean | string;
      try {
        result = check();
      } catch {
        result = false;
      }
      checks[name] = result === true || result === 'ok' ? 'ok' : result === false ? 'down' : result;
    }
    const stopping = this.stopping;
    return { ready: !stopping && Object.values(checks).every((state) => state === 'ok'), stopping, checks };
  }
}
