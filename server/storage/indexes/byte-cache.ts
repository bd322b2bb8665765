/**
 * What was read lately (records, an SMTP message's parts), the least recently used dropped first
 * once the bytes of what it holds pass the bound: a count would let a few large ones (a record
 * with thousands of addresses, a message with megabytes of attachments) hold any amount.
 */
export class ByteCache<T> {
  private readonly entries = new Map<number, { record: T; bytes: number }>();
  private total = 0;

  constructor(private readonly limit: number) {}

  get(seq: number): T | undefined {
    const entry = this.entries.get(seq);
    if (!entry) return undefined;
    this.entries.delete(seq);
    this.entries.set(seq, entry);
    return entry.record;
  }

  /** The record if kept, without counting it as used. */
  peek(seq: number): T | undefined {
    return this.entries.get(seq)?.record;
  }

  set(seq: number, record: T, bytes: number): void {
    this.delete(seq);
    if (bytes > this.limit) return;
    this.entries.set(seq, { record, bytes });
    this.total += bytes;
    for (const [oldest, entry] of this.entries) {
      if (this.total <= this.limit) break;
      this.entries.delete(oldest);
      this.total -= entry.bytes;
    }
  }

  clear(): void {
    this.entries.clear();
    this.total = 0;
  }

  delete(seq: number): void {
    const entry = this.entries.get(seq);
    if (!entry) return;
    this.entries.delete(seq);
    this.total -= entry.bytes;
  }
}
