import { DEAD, PENDING, STATUS_MASK, UNPARSED } from './message-flags.ts';

/**
 * What start-up finds still to do among the captures it loads: deliveries still pending (and
 * when each turns) and SMTP messages whose parts were never extracted (cut off by a stop). The
 * domain takes each list once, when loading is over, and tracks these itself afterwards.
 */
export class LoadedWork {
  /** Whether captures are being loaded at start-up (see pendingDeliveries and unparsedCaptures). */
  private loading = true;
  /** Captures loaded with their MIME parts not extracted yet. */
  private readonly unparsed: number[] = [];
  /** Captures loaded with a pending status, and when it turns (ms): the domain schedules them. */
  private readonly deliveries = new Map<number, number>();
  /** When each capture stored as pending (with a time) turns, in ms: start-up's deliveries come from here. */
  readonly pendingAt = new Map<number, number>();

  /** A capture with this word of flags was loaded (or added). */
  added(seq: number, bits: number): void {
    if (!this.loading) return;
    const at = this.pendingAt.get(seq);
    if (at !== undefined && (bits & STATUS_MASK) === PENDING) this.deliveries.set(seq, at);
    if (bits & UNPARSED) this.unparsed.push(seq);
  }

  /** Captures loaded with their MIME parts still to extract (taken once, when loading is over). */
  unparsedCaptures(): number[] {
    this.loading = false;
    return this.unparsed.splice(0);
  }

  /** Captures that were pending when loaded, and when each turns (ms since the epoch). */
  pendingDeliveries(): [number, number][] {
    this.loading = false;
    const out = [...this.deliveries];
    this.deliveries.clear();
    return out;
  }

  /**
   * Start-up took the captures from an image (MessageIndex.adopt): `pendingAt` as it was saved,
   * and what is still to do found among the first `used` slots' flags.
   */
  adopt(pendingAt: [number, number][], seqs: Float64Array, bits: Uint16Array, used: number): void {
    for (const [seq, at] of pendingAt) this.pendingAt.set(seq, at);
    for (let slot = 0; slot < used; slot++) {
      const flags = bits[slot]!;
      if (!(flags & DEAD) && ((flags & STATUS_MASK) === PENDING || flags & UNPARSED)) this.added(seqs[slot]!, flags);
    }
  }

  clear(): void {
    this.deliveries.clear();
    this.pendingAt.clear();
  }
}
