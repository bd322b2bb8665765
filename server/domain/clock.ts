/**
 * The sandbox clock: the one source of time for the domain (daily-limit day, timestamps,
 * delivery delays, flow schedules). It follows real time, shifted by an offset that tests and
 * the flow engine can move; nothing in the domain calls Date.now() directly.
 */
export interface Clock {
  now(): Date;
}

export class SandboxClock implements Clock {
  private offsetMs = 0;

  constructor(private readonly realNow: () => number = Date.now) {}

  now(): Date {
    return new Date(this.realNow() + this.offsetMs);
  }

  get offset(): number {
    return this.offsetMs;
  }
}

/** ISO-8601 UTC with whole seconds and Z, the wire format (api-contract.md §1). */
export function wireTime(iso: string | Date): string {
  const date = typeof iso === 'string' ? new Date(iso) : iso;
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/** The UTC calendar day of an instant, e.g. "2026-02-17". */
export function utcDay(date: Date): string {
  return date.toISOString().slice(0, 10);
}
