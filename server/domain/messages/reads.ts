import { ByteCache } from '../../storage/indexes/byte-cache.ts';
import { CaptureStore } from '../../storage/capture-store.ts';
import type { ContentRef } from '../../storage/packs/pack-store.ts';
import type { Store } from '../../storage/store.ts';
import type { AttachmentRecord, FlowMark, MessageRecord } from '../entities.ts';
import { InvalidEncryptionKey } from '../errors.ts';
import { decodeId } from '../ids.ts';
import { parseHeaders, type HeaderField } from '../mail/headers.ts';
import type { PageOf } from '../paging.ts';
import { unseal } from './encryption.ts';
import type { MessageParts, RawParser } from './incoming.ts';
import { buildEml, withTrace } from './message-files.ts';
import { compileFilter, compileTeamFilter, type MessageFilter } from './message-filter.ts';

/**
 * SMTP messages kept taken apart (bodies and attachments) after a read, for the next one, by
 * the size of their raw bytes (a message larger than this is taken apart at each read).
 */
const PARTS_CACHE_BYTES = 32 * 1024 * 1024;
/** Headers are read from at most this much of the start of a message. */
const MAX_HEADER_BYTES = 256 * 1024;

/** Whether a capture's body as sent, before the account template, can be had (MessageReads.unwrappedHtml). */
export type UnwrappedState = 'kept' | 'not_wrapped' | 'not_kept';

export function unwrappedState(record: MessageRecord): UnwrappedState {
  if (record.content.body) return 'kept';
  return record.usedTemplate ? 'not_kept' : 'not_wrapped';
}

/**
 * The rules of reading captures: lists, filters and search run on the store's compact index
 * (nothing is read for them); a capture's full record is read from its segment when shown,
 * as the domain has it (`load`: its outcome settled when due, its parts taken apart), and its
 * bodies, attachments, .eml and headers from its parts.
 */
export abstract class MessageReads {
  protected readonly captures: CaptureStore;
  /** SMTP messages recently taken apart for a read (a preview, then its text, then its attachments). */
  private readonly partsCache = new ByteCache<Promise<MessageParts>>(PARTS_CACHE_BYTES);

  constructor(
    store: Store,
    private readonly parser: RawParser | undefined,
  ) {
    this.captures = new CaptureStore(store, (seq) => this.load(seq));
  }

  /** The full record of a live capture as the domain has it, or undefined. */
  protected abstract load(seq: number): Promise<MessageRecord | undefined>;

  /** A /v1 email record of the team (captures from anonymous SMTP are not /v1 records). */
  async findForTeam(team: string, id: string): Promise<MessageRecord | undefined> {
    const record = await this.get(id);
    return record && record.team === team && record.source !== 'smtp' ? record : undefined;
  }

  /** A page of the team's /v1 email records, newest first, optionally to one original recipient. */
  pageForTeam(team: string, recipient: string | undefined, offset: number, limit: number): Promise<PageOf<MessageRecord>> {
    // Without a recipient the count is kept, and the scan stops once the page is full.
    const total = recipient === undefined ? this.captures.index.teamRecordCount(team) : undefined;
    return this.pageWhere(compileTeamFilter(team, recipient, this.captures.index), offset, limit, total);
  }

  count(): number {
    return this.captures.index.size;
  }

  /** The capture with this id, or undefined. */
  async get(id: string): Promise<MessageRecord | undefined> {
    const seq = decodeId(id);
    return seq === null ? undefined : this.load(seq);
  }

  /** One page of captures, newest first, for the sandbox API. */
  page(filter: MessageFilter, offset: number, limit: number): Promise<PageOf<MessageRecord>> {
    const unfiltered = Object.values(filter).every((value) => value === undefined || value === '');
    return this.pageWhere(compileFilter(filter, this.captures.index), offset, limit, unfiltered ? this.captures.index.size : undefined);
  }

  /** The sequence numbers of every capture matching the filter, newest first (numbers only: nothing is read). */
  matching(filter: MessageFilter): number[] {
    const { index } = this.captures;
    const seqs: number[] = [];
    index.scanNewestFirst(compileFilter(filter, index), (slot) => void seqs.push(index.seq(slot)));
    return seqs;
  }

  /** The live captures with these sequence numbers (those deleted meanwhile left out). */
  async records(seqs: readonly number[]): Promise<MessageRecord[]> {
    return (await Promise.all(seqs.map((seq) => this.load(seq)))).filter((r): r is MessageRecord => r !== undefined);
  }

  /** A test for captures that arrive later (wait-for): whether one matches the filter. */
  matcher(filter: MessageFilter): (record: MessageRecord) => boolean {
    const { index } = this.captures;
    const match = compileFilter(filter, index);
    return (record) => {
      const slot = index.slotOf(record.seq);
      return slot >= 0 && match(slot);
    };
  }

  /** Flow captures' marks (the flow engine's crash-safe record of what it already sent). */
  flowMarks(): IterableIterator<[number, FlowMark]> {
    return this.captures.index.flowCaptures();
  }

  /** The oldest captures: at most `limit`, those created before `before` when given (retention). */
  oldest(limit: number, before?: Date): number[] {
    const { index } = this.captures;
    const cutoff = before?.getTime();
    return index.oldest(limit, cutoff === undefined ? undefined : (slot) => index.createdMs(slot) < cutoff);
  }

  /** When the oldest capture kept was created, or null when the inbox is empty. */
  oldestCreatedAt(): Date | null {
    const ms = this.captures.index.oldestCreatedMs();
    return ms === null ? null : new Date(ms);
  }

  /** The captures of one team, one namespace, or both (a partial reset). */
  within(scope: { team?: string; namespace?: string }): number[] {
    const { index } = this.captures;
    const { team, namespace } = scope;
    return index.oldest(
      Number.MAX_SAFE_INTEGER,
      (slot) => (team === undefined || index.team(slot) === team) && (namespace === undefined || index.namespace(slot) === namespace),
    );
  }

  /**
   * The /v1 record body: the delivered HTML. An encrypted record needs its key; without one
   * the sealed text is returned as it is stored (docs/api-contract.md §3, Encryption-Key).
   */
  async recordBody(record: MessageRecord, encryptionKey: string | undefined): Promise<string> {
    if (!record.encrypted) return (await this.html(record)) ?? '';
    const sealed = record.content.sealed ? (await this.part(record, record.content.sealed)).toString('utf8') : '';
    if (encryptionKey === undefined) return sealed;
    const clear = await unseal(sealed, encryptionKey);
    if (clear === null) throw new InvalidEncryptionKey();
    return clear;
  }

  async html(record: MessageRecord): Promise<string | null> {
    if (record.derived) return record.derived.html ? (await this.rawParts(record)).html : null;
    return record.content.html ? (await this.part(record, record.content.html)).toString('utf8') : null;
  }

  /**
   * The HTML body as the sender gave it, before the account template wrapped it: the part kept
   * beside the HTML (`kept`), the HTML itself when no template wrapped it (`not_wrapped`), or
   * null for a capture wrapped before Pigeonhole kept the body as sent (`not_kept`).
   */
  async unwrappedHtml(record: MessageRecord): Promise<string | null> {
    const state = unwrappedState(record);
    if (state === 'not_kept') return null;
    if (state === 'not_wrapped') return this.html(record);
    return (await this.part(record, record.content.body!)).toString('utf8');
  }

  async text(record: MessageRecord): Promise<string | null> {
    if (record.derived) return record.derived.text ? (await this.rawParts(record)).text : null;
    return record.content.text ? (await this.part(record, record.content.text)).toString('utf8') : null;
  }

  /**
   * The capture as an RFC 5322 message (the .eml): as the SMTP client sent it, or for API and
   * flow captures built from the parts, the same bytes every time.
   */
  async raw(record: MessageRecord): Promise<Buffer> {
    if (record.content.eml) return this.part(record, record.content.eml);
    if (record.content.raw) return withTrace(record, await this.part(record, record.content.raw));
    const [html, text, attachments] = await Promise.all([
      this.html(record),
      this.text(record),
      Promise.all(record.attachments.map(async (attachment) => ({ attachment, data: await this.attachment(record, attachment) }))),
    ]);
    return buildEml(record, { html, text, attachments });
  }

  /** The header fields of the capture's .eml, unfolded and decoded. */
  async headers(record: MessageRecord): Promise<HeaderField[]> {
    const raw = record.content.eml || record.content.raw ? await this.raw(record) : await this.headerEml(record);
    return parseHeaders(raw.subarray(0, MAX_HEADER_BYTES).toString('latin1'));
  }

  /**
   * A built .eml whose header block is the real one's: that block depends on the bodies and on
   * which kinds of attachment there are (inline or not), never on their bytes or number, so one
   * empty attachment of each kind stands for all (60,000 of them took seconds to build for it).
   */
  private async headerEml(record: MessageRecord): Promise<Buffer> {
    const inline = record.attachments.find((a) => a.contentId);
    const attached = record.attachments.find((a) => !a.contentId);
    const kinds = [inline, attached].filter((a) => a !== undefined).map((attachment) => ({ attachment, data: Buffer.alloc(0) }));
    const [html, text] = await Promise.all([this.html(record), this.text(record)]);
    return buildEml(record, { html, text, attachments: kinds });
  }

  /** An attachment's bytes. */
  async attachment(record: MessageRecord, attachment: AttachmentRecord): Promise<Buffer> {
    if (attachment.content) return this.part(record, attachment.content);
    const index = record.attachments.indexOf(attachment);
    return (await this.rawParts(record)).attachments[index]?.content ?? Buffer.alloc(0);
  }

  /** An SMTP capture's bodies and attachments, taken from its raw bytes (the last few are kept). */
  private rawParts(record: MessageRecord): Promise<MessageParts> {
    const kept = this.partsCache.get(record.seq);
    if (kept) return kept;
    const parser = this.parser;
    const raw = record.content.raw;
    const parts = parser && raw ? this.part(record, raw).then((bytes) => parser.parts(bytes)) : Promise.resolve({ html: null, text: null, attachments: [] });
    parts.catch(() => this.partsCache.delete(record.seq));
    this.partsCache.set(record.seq, parts, raw?.n ?? 0);
    return parts;
  }

  private part(record: MessageRecord, ref: ContentRef): Promise<Buffer> {
    return this.captures.part(record, ref);
  }

  /**
   * One page, newest first. With `knownTotal` (the count is kept elsewhere) the scan stops once
   * the page is full; otherwise every capture is tested, to count the matches.
   */
  private async pageWhere(match: (slot: number) => boolean, offset: number, limit: number, knownTotal?: number): Promise<PageOf<MessageRecord>> {
    const { index } = this.captures;
    const seqs: number[] = [];
    let seen = 0;
    index.scanNewestFirst(match, (slot) => {
      if (seen >= offset && seqs.length < limit) seqs.push(index.seq(slot));
      seen++;
      return knownTotal === undefined || seqs.length < limit;
    });
    const total = knownTotal ?? seen;
    const items = (await Promise.all(seqs.map((seq) => this.load(seq)))).filter((r): r is MessageRecord => r !== undefined);
    return { total, items };
  }
}
