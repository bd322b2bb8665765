import type { Store } from '../../storage/store.ts';
import type { LiveTemplate } from '../directory/account-templates.ts';
import type { Caller } from '../directory/directory.ts';
import type { Recipients } from '../directory/recipients.ts';
import type { MessageRecord } from '../entities.ts';
import { StorageError } from '../errors.ts';
import type { DeletedCapture, Events } from '../events.ts';
import { encodeId } from '../ids.ts';
import type { Clock } from '../time/clock.ts';
import type { Scheduler } from '../time/scheduler.ts';
import type { Blocks } from '../toolkit/blocks.ts';
import { Delivery, type ForcedStatus } from './delivery-status.ts';
import type { IncomingEmail, ParseQueue, PartsSummary, RawParser } from './incoming.ts';
import { Ingest } from './ingest.ts';
import { MessageReads } from './reads.ts';

export interface MessagesOptions {
  /** Extracts the parts of an SMTP message; without it, such captures keep only their .eml. */
  parseRaw?: RawParser;
  /** The account template a sender's send is wrapped in now (directory/account-templates.ts). */
  liveTemplate: (senderId: string) => LiveTemplate | null;
}

/**
 * The captures (docs/architecture.md): the rules of ingest (ingest.ts), of delivery
 * (delivery-status.ts) and of reads (reads.ts) over the captures as stored (storage/capture-store.ts),
 * and the commands that change a capture, each one unit of work. SMTP messages stored before
 * their parts were known are taken apart by the SMTP layer's parse queue, which hands what it
 * finds back here.
 */
export class Messages extends MessageReads {
  private readonly delivery: Delivery;
  private readonly parses: ParseQueue | null;
  private readonly intake: Ingest;

  constructor(
    private readonly store: Store,
    clock: Clock,
    recipients: Recipients,
    blocks: Blocks,
    private readonly events: Events,
    deliveryDelayMs: number,
    scheduler: Scheduler,
    options: MessagesOptions,
  ) {
    super(store, options.parseRaw);
    const { captures } = this;
    this.delivery = new Delivery(store, captures, clock, blocks, events, scheduler, deliveryDelayMs);
    this.parses =
      options.parseRaw?.queue({
        read: (seq) => captures.read(seq),
        raw: (record) => captures.part(record, record.content.raw!),
        parsed: (seq, record, summary) => this.storeParts(seq, record, summary),
      }) ?? null;
    const { liveTemplate } = options;
    this.intake = new Ingest({ store, captures, clock, recipients, blocks, events, scheduler, delivery: this.delivery, parses: this.parses, liveTemplate });
    // Delivery outcomes are due on the sandbox clock, so advancing it settles them in order.
    scheduler.handle('delivery', async (seq) => {
      const record = await this.load(seq);
      if (record) this.delivery.settle(record);
      // Due in order: the outcome is on disk before the next entry runs.
      await this.delivery.written(seq);
    });
    // SMTP messages stored before a stop but not yet taken apart.
    if (this.parses) for (const seq of captures.index.work.unparsedCaptures()) this.parses.add(seq);
  }

  /** Applies the sender's rules and captures the email; resolves once it is on disk. */
  ingest(email: IncomingEmail): Promise<MessageRecord> {
    return this.intake.ingest(email);
  }

  /**
   * The sender's daily limit when it is already used up today, else null: lets SMTP refuse at
   * MAIL FROM, before the client sends the message (the count itself is taken by ingest).
   */
  dailyLimitReached(caller: Caller): number | null {
    return this.intake.dailyLimitReached(caller);
  }

  /** How many sends the sender has counted against its daily limit today (sandbox clock). */
  sentToday(senderId: string): number {
    return this.intake.sentToday(senderId);
  }

  /** Starts the senders' daily counts over (every sender's when undefined); resolves with how many had one. */
  resetDailyCounts(senders?: ReadonlySet<string>): Promise<number> {
    return this.intake.resetDailyCounts(senders);
  }

  /**
   * Deletes captures: their records (tombstones in the segments) and, once no capture refers to
   * them, their bytes (dead packs are deleted, mostly dead ones compacted in the background).
   */
  async remove(seqs: readonly number[]): Promise<DeletedCapture[]> {
    // A capture whose outcome is due is settled first, as any read of it would.
    const doomed = await this.captures.forDeletion(seqs, (record) => this.delivery.settle(record));
    const gone = await this.captures.remove(doomed, (seq) => {
      this.delivery.forget(seq);
      // An SMTP message not taken apart yet: its parse is no longer wanted.
      this.parses?.drop(seq);
    });
    // A capture's id is its sequence number's (ids.ts): what the index alone deleted has no record read.
    const removed = gone.map(({ seq }) => ({ seq, id: encodeId(seq) }));
    if (removed.length > 0) this.events.emit('message.deleted', removed);
    return removed;
  }

  /** Deletes every capture; returns how many there were. */
  async clear(): Promise<number> {
    const count = await this.captures.clear(() => {
      this.delivery.clear();
      this.parses?.clear();
    });
    this.events.emit('message.cleared', count);
    return count;
  }

  /** Marks a capture read or unread (the inbox's unread state). */
  async setRead(record: MessageRecord, read: boolean): Promise<void> {
    if (record.read === read) return;
    await this.store.update(
      () => {
        record.read = read;
        this.captures.index.setRead(record.seq, read);
        this.captures.put(record);
      },
      {
        // Refused: the capture stays as it was (the queued line writes the old state back).
        undo: () => {
          record.read = !read;
          this.captures.index.setRead(record.seq, !read);
        },
      },
    );
    this.events.emit('message.updated', record);
  }

  /**
   * Forces a capture's delivery status (the sandbox API, docs/api-contract.md §6). A forced bounce
   * or complaint blocks the recipient as a real one does.
   */
  setStatus(record: MessageRecord, status: ForcedStatus): Promise<MessageRecord> {
    return this.delivery.setStatus(record, status);
  }

  /** Rewrites mostly dead packs and segments (storage/capture-store.ts), without holding up sends. */
  compact(): Promise<void> {
    return this.captures.compact();
  }

  /** Stops background work: compaction is not started again; SMTP messages being taken apart finish. */
  async close(): Promise<void> {
    this.captures.close();
    await this.parses?.close();
  }

  /**
   * The full record of a live capture (settled if its outcome is due, its parts extracted if
   * it is an SMTP message that arrived a moment ago), or undefined.
   */
  protected async load(seq: number): Promise<MessageRecord | undefined> {
    const record = await this.captures.read(seq);
    if (!record) return undefined;
    if (record.unparsed && this.parses) return this.parses.parsed(seq);
    return this.delivery.settle(record);
  }

  /**
   * What the parse of an SMTP capture found: bodies and attachments described beside it, the
   * snippet in the search text, then announced (message.created). A capture parsed already
   * (`summary` null) is only settled.
   */
  private async storeParts(seq: number, record: MessageRecord, summary: PartsSummary | null): Promise<MessageRecord | undefined> {
    if (summary === null) return this.delivery.settle(record);
    // Deleted while it was being looked at: nothing to keep.
    if (!this.captures.index.has(seq)) return undefined;
    const current = this.captures.cached(seq) ?? record;
    // Parts are derived from the raw message already stored: a store that cannot write (a
    // read-only data directory) still shows them, and keeps them queued until it can.
    await this.store
      .update(() => {
        current.derived = { html: summary.html, text: summary.text };
        current.attachments = summary.attachments;
        current.snippet = summary.snippet;
        if (summary.bodyText === undefined) delete current.bodyText;
        else current.bodyText = summary.bodyText;
        delete current.unparsed;
        this.captures.index.setText(current);
        this.captures.put(current);
      })
      .catch((error: unknown) => {
        if (!(error instanceof StorageError)) throw error;
      });
    this.events.emit('message.created', current);
    return this.delivery.settle(current);
  }
}
