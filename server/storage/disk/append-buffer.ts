const INITIAL_APPEND = 64 * 1024;
/** A buffer grown past this for one large write is not kept for the next. */
const MAX_KEPT_APPEND = 1024 * 1024;

/**
 * The bytes of one append, encoded into a buffer kept from one write to the next. A segment
 * log's lines (segment-write.ts) used to be joined into a string, measured again with
 * Buffer.byteLength, then copied into a new Buffer: some 10 KB of garbage per send, the largest
 * allocation of the send path at the retention limit. A segment log's writes run one at a time
 * (its group commit's cycles are serial and a cycle writes its segments in turn), so each log
 * has one (segment-table.ts).
 */
export class AppendBuffer {
  private bytes = Buffer.allocUnsafeSlow(INITIAL_APPEND);
  private used = 0;

  /** Appends `text` as UTF-8 (a lone surrogate as U+FFFD, as Buffer.from does); returns its length in bytes. */
  text(text: string): number {
    // At most three bytes per UTF-16 unit.
    this.room(text.length * 3);
    const length = this.bytes.write(text, this.used, 'utf8');
    this.used += length;
    return length;
  }

  /** Appends bytes as they are (a file's header, a separator); returns their length. */
  bytesOf(source: Buffer): number {
    this.room(source.length);
    source.copy(this.bytes, this.used);
    this.used += source.length;
    return source.length;
  }

  /** What was appended since the last `take`, as a view valid until the next write begins. */
  take(): Buffer {
    const view = this.bytes.subarray(0, this.used);
    this.used = 0;
    return view;
  }

  /** After a large write: lets the room it needed go (the next write starts small again). */
  shrink(): void {
    if (this.bytes.length > MAX_KEPT_APPEND) this.bytes = Buffer.allocUnsafeSlow(INITIAL_APPEND);
  }

  private room(extra: number): void {
    if (this.used + extra <= this.bytes.length) return;
    const next = Buffer.allocUnsafeSlow(Math.max(this.used + extra, this.bytes.length * 2));
    this.bytes.copy(next, 0, 0, this.used);
    this.bytes = next;
  }
}
