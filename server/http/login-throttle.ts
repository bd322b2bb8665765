/** Failed logins an address may make at once before it has to wait. */
const FAILURE_BURST = 10;
/** Then one more attempt per this many milliseconds (10 a minute). */
const REFILL_MS = 6000;
/** Addresses remembered; past this the one not heard from the longest is forgotten. */
const MAX_ADDRESSES = 10_000;

/**
 * Failed logins per client address, as a token bucket: an address may fail FAILURE_BURST times,
 * then once every REFILL_MS. Asked before a password is compared, so a throttled address costs
 * no bcrypt. `now` is the real-time source (milliseconds), not the sandbox clock.
 */
export class LoginThrottle {
  readonly #buckets = new Map<string, { tokens: number; at: number }>();
  readonly #now: () => number;

  constructor(now: () => number = Date.now) {
    this.#now = now;
  }

  /** Whole seconds the address must wait before its next attempt; 0 when it may try now. */
  retryAfter(address: string): number {
    const tokens = this.#tokens(address);
    return tokens >= 1 ? 0 : Math.ceil(((1 - tokens) * REFILL_MS) / 1000);
  }

  /** Counts a failed attempt of the address. */
  failed(address: string): void {
    const tokens = Math.max(0, this.#tokens(address) - 1);
    this.#buckets.delete(address);
    this.#buckets.set(address, { tokens, at: this.#now() });
    if (this.#buckets.size > MAX_ADDRESSES) this.#buckets.delete(this.#buckets.keys().next().value!);
  }

  #tokens(address: string): number {
    const bucket = this.#buckets.get(address);
    if (!bucket) return FAILURE_BURST;
    return Math.min(FAILURE_BURST, bucket.tokens + Math.max(0, this.#now() - bucket.at) / REFILL_MS);
  }
}
