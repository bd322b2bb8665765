import type { AttachmentRecord, DeliveryStatus, FlowMark, MessageRecord, Source } from '../storage/records.ts';
import type { Store } from '../storage/store.ts';
import type { Blocks } from './blocks.ts';
import { utcDay, type Clock } from './clock.ts';
import { blocksRecipient, simulatedOutcome } from './delivery.ts';
import type { Caller } from './directory.ts';
import { emailKey } from './email-address.ts';
import { unseal } from './encryption.ts';
import { DailyLimitReached, InvalidEncryptionKey } from './errors.ts';
import type { Events } from './events.ts';
import { normaliseFlags } from './flags.ts';
import { readHeaders, type HeaderField } from './headers.ts';
import { decodeId, encodeId, sesMessageId } from './ids.ts';
import { BODY_HTML, BODY_TEXT, blobNames, RAW, SEALED, writeCaptureFiles } from './message-files.ts';
import { compileFilter, type MessageFilter } from './message-filter.ts';
import { pageNewestFirst, type PageOf } from './paging.ts';
import type { Recipients } from './recipients.ts';
import type { Scheduler } from './scheduler.ts';
import { textSnippet } from './snippet.ts';
import { wrapInTemplate } from './template.ts';

export interface IncomingAttachment {
  filename: string;
  contentType: string;
  /** A temporary file to move in (uploads), or the bytes themselves. */
  tempPath?: string;
  content?: Buffer;
  contentId?: string;
}

export interface IncomingEmail {
  source: Source;
  /** The authenticated sender; null for anonymous SMTP. */
  caller: Caller | null;
  /** Defaults to the sender's address. */
  from?: string;
  /** The address asked for (for SMTP, the first envelope recipient). */
  recipient: string;
  /** To addresses when they differ from `[recipient]` (SMTP: the To header). */
  to?: string[];
  cc?: string[];
  bcc?: string[];
  subject: string;
  html: string | null;
  text: string | null;
  attachments: IncomingAttachment[];
  firstName?: string;
  lastName?: string;
  flags?: string[];
  useAccountTemplate: boolean;
  encryptionKey?: string;
  flow?: FlowMark;
  /** The message as the SMTP client sent it, kept as the capture's .eml. */
  raw?: Buffer;
}

export type ForcedStatus = Exclude<DeliveryStatus, 'pending'>;

/**
 * The one ingestion path (design.md): API sends, SMTP messages and flow steps all end here,
 * where the sender's rules are applied and the capture is stored.
 */
export class Messages {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly recipients: Recipients,
    private readonly blocks: Blocks,
    private readonly events: Events,
    private readonly deliveryDelayMs: number,
    private readonly scheduler: Scheduler,
  ) {
    // Delivery outcomes are due on the sandbox clock, so advancing it settles them in order.
    scheduler.handle('delivery', async (seq) => {
      const record = this.store.messages.get(seq);
      if (record) this.settle(record);
      await this.store.flush();
    });
    const strings = new Map<string, string>();
    for (const record of store.messages.all()) {
      compact(record, strings);
      if (record.status === 'pending') this.scheduleSettle(record);
    }
  }

  /** Applies the sender's rules and captures the email; resolves once it is on disk. */
  async ingest(email: IncomingEmail): Promise<MessageRecord> {
    const now = this.clock.now();
    const sender = email.caller?.sender ?? null;
    const team = email.caller?.team.id ?? null;
    const releaseLimit = this.reserveDailySend(email, now);
    try {
      const originalTo = email.to ?? [email.recipient];
      const originals = uniqueAddresses([email.recipient, ...originalTo, ...(email.cc ?? []), ...(email.bcc ?? [])]);
      // Blocked is decided on the original recipients, before any Development Mode redirect (§3);
      // a message to several (SMTP) is blocked as a whole when any of them is.
      const blocked = team !== null && originals.some((address) => this.blocks.isBlocked(team, address));
      const flags = normaliseFlags(email.flags);
      if (team !== null && !blocked) {
        this.recipients.apply(team, email.recipient, { firstName: email.firstName, lastName: email.lastName, flags, sent: true });
        for (const address of originals.slice(1)) this.recipients.apply(team, address, { sent: true });
      }
      const template = email.useAccountTemplate ? (sender?.accountTemplate ?? null) : null;
      const usedTemplate = email.html !== null && template !== null;
      const html = email.html === null ? null : wrapInTemplate(template, email.html);
      const redirected = sender !== null && sender.developmentMode && sender.developmentRecipient !== null;
      // Development Mode sends everything to one address: Cc and Bcc are redirected too.
      const to = redirected ? [sender.developmentRecipient!] : originalTo;
      const cc = redirected ? [] : (email.cc ?? []);
      const bcc = redirected ? [] : (email.bcc ?? []);
      const seq = ++this.store.meta.counters.message;
      this.store.touchMeta();
      const id = encodeId(seq);
      const outcome = blocked ? 'failed' : simulatedOutcome(to[0] ?? cc[0] ?? bcc[0] ?? email.recipient);
      const settled = blocked || this.deliveryDelayMs === 0;
      const record: MessageRecord = {
        seq,
        id,
        source: email.source,
        team,
        sender: sender?.id ?? null,
        from: email.from ?? sender?.email ?? '',
        recipient: email.recipient,
        to,
        cc,
        bcc,
        subject: email.subject,
        firstName: email.firstName ?? null,
        lastName: email.lastName ?? null,
        flags,
        usedTemplate,
        redirected,
        blocked,
        status: settled ? outcome : 'pending',
        deliverAt: settled ? null : new Date(now.getTime() + this.deliveryDelayMs).toISOString(),
        outcome,
        sesId: sesMessageId(now),
        encrypted: email.encryptionKey !== undefined,
        hasHtml: html !== null,
        hasText: email.text !== null,
        attachments: email.attachments.map((a, index) => ({
          blob: `attachment-${index}`,
          filename: a.filename,
          contentType: a.contentType,
          size: 0,
          ...(a.contentId ? { contentId: a.contentId } : {}),
        })),
        snippet: textSnippet(email.text, email.html),
        flow: email.flow ?? null,
        read: false,
        createdAt: now.toISOString(),
        updatedAt: now.toISOString(),
      };
      await writeCaptureFiles(this.store.blobs, record, { ...email, html, originalRecipients: originals }, now);
      this.store.messages.insert(record);
      if (settled && blocksRecipient(outcome) && team !== null && to[0] !== undefined) this.blocks.block(team, to[0], outcome === 'bounced' ? 'bounce' : 'complaint');
      if (!settled) this.scheduleSettle(record);
      await this.store.flush();
      this.events.emit('message.created', record);
      // Flags given with a send may end a flow's wait: let that run before the caller answers.
      if (email.source !== 'flow' && flags.length > 0) await this.scheduler.settle();
      return record;
    } catch (error) {
      releaseLimit();
      throw error;
    }
  }

  /** A /v1 email record of the team (captures from anonymous SMTP are not /v1 records). */
  findForTeam(team: string, id: string): MessageRecord | undefined {
    const record = this.byId(id);
    return record && record.team === team && record.source !== 'smtp' ? this.settle(record) : undefined;
  }

  /** A page of the team's /v1 email records, newest first, optionally to one original recipient. */
  pageForTeam(team: string, recipient: string | undefined, offset: number, limit: number): PageOf<MessageRecord> {
    const wanted = recipient === undefined ? undefined : emailKey(recipient);
    const match = (r: MessageRecord) => r.team === team && r.source !== 'smtp' && (wanted === undefined || emailKey(r.recipient) === wanted);
    return pageNewestFirst(this.store.messages.all(), match, offset, limit);
  }

  count(): number {
    return this.store.messages.size;
  }

  byId(id: string): MessageRecord | undefined {
    const seq = decodeId(id);
    const record = seq === null ? undefined : this.store.messages.get(seq);
    return record ? this.settle(record) : undefined;
  }

  /** One page of captures, newest first, for the sandbox API. */
  page(filter: MessageFilter, offset: number, limit: number): PageOf<MessageRecord> {
    const all = this.store.messages.all();
    const page = Object.values(filter).every((v) => v === undefined)
      ? { total: all.length, items: all.slice(Math.max(0, all.length - offset - limit), Math.max(0, all.length - offset)).reverse() }
      : pageNewestFirst(all, compileFilter(filter), offset, limit);
    return { total: page.total, items: page.items.map((r) => this.settle(r)) };
  }

  /**
   * The /v1 record body: the delivered HTML. An encrypted record needs its key; without one
   * the sealed text is returned as it is stored (api-contract.md §3, Encryption-Key).
   */
  async recordBody(record: MessageRecord, encryptionKey: string | undefined): Promise<string> {
    if (!record.encrypted) return (await this.store.blobs.readText(record.seq, BODY_HTML)) ?? '';
    const sealed = (await this.store.blobs.readText(record.seq, SEALED)) ?? '';
    if (encryptionKey === undefined) return sealed;
    const clear = await unseal(sealed, encryptionKey);
    if (clear === null) throw new InvalidEncryptionKey();
    return clear;
  }

  html(record: MessageRecord): Promise<string | null> {
    return record.hasHtml ? this.store.blobs.readText(record.seq, BODY_HTML) : Promise.resolve(null);
  }

  text(record: MessageRecord): Promise<string | null> {
    return record.hasText ? this.store.blobs.readText(record.seq, BODY_TEXT) : Promise.resolve(null);
  }

  /** The capture as an RFC 5322 message (the .eml). */
  raw(record: MessageRecord): Promise<Buffer> {
    return this.store.blobs.read(record.seq, RAW);
  }

  /** The header fields of the capture's .eml, unfolded and decoded; none when it is missing. */
  async headers(record: MessageRecord): Promise<HeaderField[]> {
    return readHeaders(this.store.blobs.file(record.seq, RAW));
  }

  /** An attachment's bytes. */
  attachment(record: MessageRecord, attachment: AttachmentRecord): Promise<Buffer> {
    return this.store.blobs.read(record.seq, attachment.blob);
  }

  rawPath(record: MessageRecord): string {
    return this.store.blobs.file(record.seq, RAW);
  }

  /**
   * Deletes captures and their files. The records leave the store first and the files after the
   * flush, so a crash never leaves a record whose files are gone.
   */
  async remove(seqs: readonly number[]): Promise<MessageRecord[]> {
    const removed = await this.removeQuietly(seqs);
    if (removed.length > 0) this.events.emit('message.deleted', removed);
    return removed;
  }

  /** Deletes every capture; returns how many there were. */
  async clear(): Promise<number> {
    const removed = await this.removeQuietly(this.store.messages.all().map((r) => r.seq));
    this.events.emit('message.cleared', removed.length);
    return removed.length;
  }

  private async removeQuietly(seqs: readonly number[]): Promise<MessageRecord[]> {
    const removed: MessageRecord[] = [];
    for (const seq of seqs) {
      const record = this.store.messages.remove(seq);
      if (!record) continue;
      removed.push(record);
      this.scheduler.cancel('delivery', seq);
    }
    if (removed.length === 0) return removed;
    await this.store.flush();
    for (let at = 0; at < removed.length; at += 64) {
      await Promise.all(removed.slice(at, at + 64).map((record) => this.store.blobs.remove(record.seq, blobNames(record))));
    }
    return removed;
  }

  /** Marks a capture read or unread (the inbox's unread state). */
  async setRead(record: MessageRecord, read: boolean): Promise<void> {
    if (record.read === read) return;
    record.read = read;
    this.store.messages.touch(record);
    await this.store.flush();
    this.events.emit('message.updated', record);
  }

  /**
   * Forces a capture's delivery status (the sandbox API, api-contract.md §6). A forced bounce
   * or complaint blocks the original recipient for the team's later sends, as a real one does.
   */
  async setStatus(record: MessageRecord, status: ForcedStatus): Promise<MessageRecord> {
    this.scheduler.cancel('delivery', record.seq);
    record.status = status;
    record.outcome = status;
    record.deliverAt = null;
    record.updatedAt = this.clock.now().toISOString();
    this.store.messages.touch(record);
    if (blocksRecipient(status) && record.team !== null) this.blocks.block(record.team, record.recipient, status === 'bounced' ? 'bounce' : 'complaint');
    await this.store.flush();
    this.events.emit('message.status', record);
    return record;
  }

  /**
   * The sender's daily limit when it is already used up today, else null: lets SMTP refuse at
   * MAIL FROM, before the client sends the message (the count itself is taken by ingest).
   */
  dailyLimitReached(caller: Caller): number | null {
    const { sender } = caller;
    if (sender.dailyLimit === null) return null;
    const daily = this.store.meta.daily;
    const used = daily.day === utcDay(this.clock.now()) ? (daily.bySender[sender.id] ?? 0) : 0;
    return used >= sender.dailyLimit ? sender.dailyLimit : null;
  }

  /**
   * The daily limit (§3): every email record the sender creates through the API in the UTC day
   * of the sandbox clock counts, blocked ones included. Reserved before anything is written so
   * concurrent sends cannot overshoot; released if the send then fails.
   */
  private reserveDailySend(email: IncomingEmail, now: Date): () => void {
    const sender = email.caller?.sender;
    if (!sender || email.source === 'flow') return () => undefined;
    const daily = this.store.meta.daily;
    const day = utcDay(now);
    if (daily.day !== day) {
      daily.day = day;
      daily.bySender = {};
    }
    const used = daily.bySender[sender.id] ?? 0;
    if (sender.dailyLimit !== null && used >= sender.dailyLimit) throw new DailyLimitReached(sender.dailyLimit);
    daily.bySender[sender.id] = used + 1;
    this.store.touchMeta();
    return () => {
      if (daily.day === day && (daily.bySender[sender.id] ?? 0) > 0) daily.bySender[sender.id]! -= 1;
    };
  }

  /** A pending status becomes its outcome once the delivery delay has passed (§6). */
  private settle(record: MessageRecord): MessageRecord {
    if (record.status !== 'pending' || record.deliverAt === null) return record;
    if (new Date(record.deliverAt).getTime() > this.clock.now().getTime()) return record;
    record.status = record.outcome;
    record.deliverAt = null;
    record.updatedAt = this.clock.now().toISOString();
    this.store.messages.touch(record);
    if (blocksRecipient(record.outcome) && record.team !== null && record.to[0] !== undefined) {
      this.blocks.block(record.team, record.to[0], record.outcome === 'bounced' ? 'bounce' : 'complaint');
    }
    void this.store.flush().catch(() => undefined);
    this.events.emit('message.status', record);
    this.scheduler.cancel('delivery', record.seq);
    return record;
  }

  private scheduleSettle(record: MessageRecord): void {
    this.scheduler.schedule('delivery', record.seq, new Date(record.deliverAt ?? 0).getTime());
  }
}

const NONE: never[] = Object.freeze([]) as never[];

/**
 * Loaded records share what repeats across them (empty lists, sender addresses, the
 * recipient as the only `to`), so a large inbox costs less memory. A record is never changed
 * in a way that would write to a shared list: new ones get their own.
 */
function compact(record: MessageRecord, strings: Map<string, string>): void {
  const intern = (value: string) => {
    const known = strings.get(value);
    if (known !== undefined) return known;
    strings.set(value, value);
    return value;
  };
  if (record.cc.length === 0) record.cc = NONE;
  if (record.bcc.length === 0) record.bcc = NONE;
  if (record.flags.length === 0) record.flags = NONE;
  if (record.attachments.length === 0) record.attachments = NONE;
  record.from = intern(record.from);
  if (record.to.length === 1 && record.to[0] === record.recipient) record.to[0] = record.recipient;
  else record.to = record.to.map(intern);
}

/** Addresses without repeats (compared without regard to case), first spelling kept. */
function uniqueAddresses(addresses: readonly string[]): string[] {
  const seen = new Set<string>();
  return addresses.filter((address) => {
    const key = emailKey(address);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
