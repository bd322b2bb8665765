import type { MessageRecord } from '../domain/entities.ts';
import type { ParseQueue as Queue, RawParser, UnparsedCaptures } from '../domain/messages/incoming.ts';

/** SMTP messages taken apart at the same time. */
const PARSERS = 16;
/** Raw bytes of SMTP messages waiting to be taken apart that are kept in memory, at most. */
const PARSE_BUFFER_BYTES = 32 * 1024 * 1024;

/**
 * SMTP captures stored before their parts were known (a message the one-pass summary could not
 * read: mime-summary.ts), taken apart by mailparser right after: each once, several at a time,
 * from the raw bytes kept since ingest when there was room (so the parse reads nothing back
 * from disk), else read back. What a parse finds is the captures' to store and announce.
 */
export class ParseQueue implements Queue {
  /** Captures whose parts are being extracted. */
  private readonly parsing = new Map<number, Promise<MessageRecord | undefined>>();
  /** Captures waiting their turn. */
  private readonly waiting: number[] = [];
  private parsers = 0;
  /** The record and raw bytes of captures waiting to be taken apart, kept from ingest; bounded. */
  private readonly kept = new Map<number, { record: MessageRecord; raw: Buffer }>();
  private keptBytes = 0;

  constructor(
    private readonly parser: Pick<RawParser, 'summary'>,
    private readonly captures: UnparsedCaptures,
    private readonly bufferBytes = PARSE_BUFFER_BYTES,
  ) {}

  keep(record: MessageRecord, raw: Buffer): void {
    if (this.keptBytes + raw.length > this.bufferBytes) return;
    this.kept.set(record.seq, { record, raw });
    this.keptBytes += raw.length;
  }

  add(seq: number): void {
    this.waiting.push(seq);
    // Several at a time: each waits on the group commit that stores its parts, and those waits
    // are shared; mailparser yields between chunks, so the others use the CPU meanwhile.
    while (this.parsers < PARSERS && this.waiting.length > 0) {
      this.parsers++;
      void this.drain().finally(() => this.parsers--);
    }
  }

  parsed(seq: number): Promise<MessageRecord | undefined> {
    let running = this.parsing.get(seq);
    if (!running) {
      running = this.extract(seq).finally(() => {
        this.parsing.delete(seq);
        // Raw bytes kept for a parse that another reader already started are not needed either.
        this.drop(seq);
      });
      this.parsing.set(seq, running);
    }
    return running;
  }

  drop(seq: number): void {
    this.take(seq);
  }

  clear(): void {
    this.waiting.length = 0;
    this.kept.clear();
    this.keptBytes = 0;
  }

  async close(): Promise<void> {
    while (this.parsing.size > 0 || this.waiting.length > 0) {
      await Promise.allSettled([...this.parsing.values()]);
      if (this.parsing.size === 0 && this.waiting.length > 0) await this.parsed(this.waiting.shift()!);
    }
  }

  /** The bytes kept for a capture, no longer counted. */
  private take(seq: number): { record: MessageRecord; raw: Buffer } | undefined {
    const kept = this.kept.get(seq);
    if (kept) {
      this.kept.delete(seq);
      this.keptBytes -= kept.raw.length;
    }
    return kept;
  }

  private async drain(): Promise<void> {
    for (let seq = this.waiting.shift(); seq !== undefined; seq = this.waiting.shift()) {
      await this.parsed(seq).catch((error: unknown) => console.error(`pigeonhole: reading the parts of capture ${seq} failed`, error));
    }
  }

  private async extract(seq: number): Promise<MessageRecord | undefined> {
    const kept = this.take(seq);
    const record = kept?.record ?? (await this.captures.read(seq));
    if (!record) return undefined;
    if (!record.unparsed || !record.content.raw) return this.captures.parsed(seq, record, null);
    const summary = await this.parser.summary(kept?.raw ?? (await this.captures.raw(record)));
    return this.captures.parsed(seq, record, summary);
  }
}
