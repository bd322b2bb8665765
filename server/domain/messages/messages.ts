import { searchText, type MessageIndex } from '../../storage/message-index.ts';
import { namespaceOf, recordNamespace } from '../../storage/namespace.ts';
import { PART, type ContentRef } from '../../storage/pack-store.ts';
import type { AttachmentRecord, DeliveryStatus, FlowMark, MessageRecord, Source } from '../entities.ts';
import { ByteCache } from '../../storage/byte-cache.ts';
import type { Store } from '../../storage/store.ts';
import { contentRefs } from '../../storage/records.ts';
import type { Blocks } from '../toolkit/blocks.ts';
import { utcDay, type Clock } from '../time/clock.ts';
import { outcomeBlock, simulatedOutcome } from '../toolkit/delivery.ts';
import type { Caller } from '../directory/directory.ts';
import { emailKey } from '../email-address.ts';
import { unseal } from './encryption.ts';
import { DailyLimitReached, InvalidEncryptionKey, StorageError } from '../errors.ts';
import type { DeletedCapture, Events } from '../events.ts';
import { normaliseFlags } from '../directory/flags.ts';
import { parseHeaders, type HeaderField } from '../mail/headers.ts';
import { decodeId, encodeId, sesMessageId } from '../ids.ts';
import { buildEml, prepareContent, preparedFiles, storeContent, withTrace, type IncomingPart } from './message-files.ts';
import { compileFilter, compileTeamFilter, type MessageFilter } from './message-filter.ts';
import type { PageOf } from '../paging.ts';
import type { Recipients } from '../directory/recipients.ts';
import type { Scheduler } from '../time/scheduler.ts';
import { textSnippet } from './snippet.ts';
import { wrapInTemplate } from '../mail/template.ts';

export type IncomingAttachment = IncomingPart;

/** A capture about to be deleted: what the deletion needs of it. */
interface Doomed extends DeletedCapture {
  refs: ContentRef[];
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
  /**
   * The bodies and attachments are in `raw` (an SMTP message): they are extracted right after
   * it is stored, and the capture is announced (message.created) once they are.
   */
  partsFromRaw?: boolean;
  /**
   * What `raw`'s parts are, when the SMTP layer could tell without a full parse: the capture is
   * then stored complete and announced at once, with no parse after it.
   */
  partsSummary?: PartsSummary;
  /** The SMTP client that delivered it (shown in the .eml's Received field). */
  client?: { address: string; helo: string };
}

/** What a message's MIME parsing gives (the SMTP layer's mailparser, handed to the domain). */
export interface MessageParts {
  html: string | null;
  text: string | null;
  attachments: IncomingAttachment[];
}

/** What a capture keeps of an SMTP message's parts (its bodies and attachments stay in the raw bytes). */
export interface PartsSummary {
  html: boolean;
  text: boolean;
  snippet: string;
  attachments: Omit<AttachmentRecord, 'content'>[];
}

/** Takes SMTP messages apart (the SMTP layer's mailparser, in a worker thread). */
export interface RawParser {
  /** Which bodies, the snippet and the attachments' names and sizes. */
  summary(raw: Buffer): Promise<PartsSummary>;
  /** The bodies and attachments themselves. */
  parts(raw: Buffer): Promise<MessageParts>;
}

export interface MessagesOptions {
  /** Extracts the parts of an SMTP message; without it, such captures keep only their .eml. */
  parseRaw?: RawParser;
}

export type ForcedStatus = Exclude<DeliveryStatus, 'pending'>;

/** Full records kept decoded (those just looked at), by the bytes of their stored JSON. */
const CACHE_BYTES = 1024 * 1024;
/** What a record not written yet counts for in the cache. */
const UNSTORED_RECORD_BYTES = 2048;
/** SMTP messages taken apart at the same time (see queueParse). */
const PARSERS = 16;
/** Raw bytes of SMTP messages waiting to be taken apart that are kept in memory, at most. */
const PARSE_BUFFER_BYTES = 32 * 1024 * 1024;
/**
 * SMTP messages kept taken apart (bodies and attachments) after a read, for the next one, by
 * the size of their raw bytes (a message larger than this is taken apart at each read).
 */
const PARTS_CACHE_BYTES = 32 * 1024 * 1024;
/** Headers are read from at most this much of the start of a message. */
const MAX_HEADER_BYTES = 256 * 1024;
/** A pack left to retention is looked at again this much later (see compact). */
const EMPTYING_RECHECK_MS = 5000;

/**
 * The one ingestion path (docs/architecture.md): API sends, SMTP messages and flow steps all end here,
 * where the sender's rules are applied and the capture is stored. Lists, filters and search run
 * on the store's compact index; a capture's full record is read from its segment when shown.
 */
export class Messages {
  private readonly index: MessageIndex;
  private readonly cache = new ByteCache<MessageRecord>(CACHE_BYTES);
  /** Captures whose status is pending, and when it turns into its outcome (sandbox clock, ms). */
  private readonly pending = new Map<number, number>();
  private maintenance: NodeJS.Timeout | null = null;
  /** Each pack's live bytes when compaction last looked: whether deletions are still emptying it. */
  private packsLive = new Map<number, number>();
  /** SMTP captures whose parts are being extracted, or wait their turn. */
  private readonly parsing = new Map<number, Promise<MessageRecord | undefined>>();
  private readonly parseQueue: number[] = [];
  private parsers = 0;
  /**
   * The record and raw bytes of SMTP captures waiting to be taken apart, kept from ingest so
   * the parse reads nothing back from disk; bounded (past it, they are read back).
   */
  private readonly toParse = new Map<number, { record: MessageRecord; raw: Buffer }>();
  private toParseBytes = 0;
  /** SMTP messages recently taken apart for a read (a preview, then its text, then its attachments). */
  private readonly partsCache = new ByteCache<Promise<MessageParts>>(PARTS_CACHE_BYTES);
  /** Captures whose tombstones are queued or being written (still in the index until they are on disk). */
  private readonly deleting = new Set<number>();

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly recipients: Recipients,
    private readonly blocks: Blocks,
    private readonly events: Events,
    private readonly deliveryDelayMs: number,
    private readonly scheduler: Scheduler,
    private readonly options: MessagesOptions = {},
  ) {
    this.index = store.messages.index;
    // Delivery outcomes are due on the sandbox clock, so advancing it settles them in order.
    scheduler.handle('delivery', async (seq) => {
      const record = await this.load(seq);
      if (record) this.settle(record);
      await this.store.flush();
    });
    for (const [seq, at] of this.index.pendingDeliveries()) {
      this.pending.set(seq, at);
      scheduler.schedule('delivery', seq, at);
    }
    this.recountDailySends();
    // SMTP messages stored before a stop but not yet taken apart.
    for (const seq of this.index.unparsedCaptures()) this.queueParse(seq);
  }

  /** Applies the sender's rules and captures the email; resolves once it is on disk. */
  async ingest(email: IncomingEmail): Promise<MessageRecord> {
    const sender = email.caller?.sender ?? null;
    const team = email.caller?.team.id ?? null;
    const template = email.useAccountTemplate ? (sender?.accountTemplate ?? null) : null;
    const html = email.html === null ? null : wrapInTemplate(template, email.html);
    // Reading uploads and sealing take time: done before the capture is given its id, so ids
    // are handed out (and captures indexed) in the order they are stored.
    const prepared = await prepareContent(this.store.packs, {
      html,
      text: email.text,
      raw: email.raw,
      encryptionKey: email.encryptionKey,
      attachments: email.attachments,
    });
    const summary = email.partsFromRaw === true && email.raw !== undefined ? email.partsSummary : undefined;
    const deferred = email.partsFromRaw === true && email.raw !== undefined && summary === undefined && this.options.parseRaw !== undefined;
    const now = this.clock.now();
    let releaseLimit: () => void = () => undefined;
    const undoRecipients: (() => void)[] = [];
    let seq = 0;
    let captured: MessageRecord;
    try {
      releaseLimit = this.reserveDailySend(email, now);
      const originalTo = email.to ?? [email.recipient];
      const originals = uniqueAddresses([email.recipient, ...originalTo, ...(email.cc ?? []), ...(email.bcc ?? [])]);
      // Blocked is decided on the original recipients, before any Development Mode redirect (docs/api-contract.md §3);
      // a message to several (SMTP) is blocked as a whole when any of them is.
      const blocked = team !== null && originals.some((address) => this.blocks.isBlocked(team, address));
      const flags = normaliseFlags(email.flags);
      if (team !== null && !blocked) {
        undoRecipients.push(this.recipients.applyUndoably(team, email.recipient, { firstName: email.firstName, lastName: email.lastName, flags, sent: true }));
        for (const address of originals.slice(1)) undoRecipients.push(this.recipients.applyUndoably(team, address, { sent: true }));
      }
      const redirected = sender?.developmentMode === true && sender.developmentRecipient !== null;
      // Development Mode sends everything to one address: Cc and Bcc are redirected too.
      const to = redirected ? [sender.developmentRecipient!] : originalTo;
      const cc = redirected ? [] : (email.cc ?? []);
      const bcc = redirected ? [] : (email.bcc ?? []);
      seq = ++this.store.meta.counters.message;
      this.store.touchCounters();
      const outcome = blocked ? 'failed' : simulatedOutcome(to[0] ?? cc[0] ?? bcc[0] ?? email.recipient);
      const settled = blocked || this.deliveryDelayMs === 0;
      const stored = storeContent(this.store.packs, seq, prepared);
      const record: MessageRecord = {
        seq,
        id: encodeId(seq),
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
        usedTemplate: html !== null && template !== null,
        redirected,
        ...(redirected ? { originalTo: originals } : {}),
        // From the addresses as the sender gave them, so a Development Mode redirect keeps it.
        namespace: namespaceOf([...originalTo, ...(email.cc ?? []), ...(email.bcc ?? []), email.recipient]),
        blocked,
        status: settled ? outcome : 'pending',
        deliverAt: settled ? null : new Date(now.getTime() + this.deliveryDelayMs).toISOString(),
        outcome,
        sesId: sesMessageId(now),
        encrypted: email.encryptionKey !== undefined,
        content: stored.content,
        ...(deferred ? { unparsed: true as const } : {}),
        ...(summary ? { derived: { html: summary.html, text: summary.text } } : {}),
        ...(email.client ? { client: email.client } : {}),
        attachments:
          summary?.attachments ??
          email.attachments.map((a, index) => ({
            content: stored.attachments[index]!.ref,
            filename: a.filename,
            contentType: a.contentType,
            size: stored.attachments[index]!.size,
            ...(a.contentId ? { contentId: a.contentId } : {}),
          })),
        snippet: summary?.snippet ?? textSnippet(email.text, html),
        flow: email.flow ?? null,
        read: false,
        createdAt: now.toISOString(),
        updatedAt: now.toISOString(),
      };
      this.store.messages.log.put(record, { volatile: true });
      this.index.add(record);
      // Kept for its parse, from before anyone can read the capture (a reader may start it).
      if (deferred && this.toParseBytes + email.raw!.length <= PARSE_BUFFER_BYTES) {
        this.toParse.set(seq, { record, raw: email.raw! });
        this.toParseBytes += email.raw!.length;
      }
      if (settled) this.blockOnOutcome(record);
      if (!settled) this.scheduleSettle(record);
      // SMTP clients pipeline, and the messages of several connections arrive in one turn of the
      // event loop: gathered, they share one write per file (3.2 captures per write at 8
      // connections, +7-16 % messages/s in alternated pairs). An API send is written at once:
      // gathering measured 3-8 % fewer sends/s there (bench/README.md).
      await this.store.flush({ gather: email.source === 'smtp' });
      captured = record;
    } catch (error) {
      // Not stored: the capture never existed (its id is not handed out again), and the
      // recipients it made or changed are as they were.
      releaseLimit();
      for (const undo of undoRecipients.reverse()) undo();
      if (seq > 0) this.forget(seq);
      for (const ref of preparedFiles(prepared)) this.store.packs.release(ref);
      throw error;
    }
    if (deferred) {
      // Announced once its parts are extracted (message.created comes from the parse).
      this.queueParse(captured.seq);
      return captured;
    }
    this.events.emit('message.created', captured);
    // Flags given with a send may end a flow's wait: let that run before the caller answers.
    if (email.source !== 'flow' && captured.flags.length > 0) await this.scheduler.settle();
    return captured;
  }

  /** A /v1 email record of the team (captures from anonymous SMTP are not /v1 records). */
  async findForTeam(team: string, id: string): Promise<MessageRecord | undefined> {
    const record = await this.get(id);
    return record && record.team === team && record.source !== 'smtp' ? record : undefined;
  }

  /** A page of the team's /v1 email records, newest first, optionally to one original recipient. */
  pageForTeam(team: string, recipient: string | undefined, offset: number, limit: number): Promise<PageOf<MessageRecord>> {
    // Without a recipient the count is kept, and the scan stops once the page is full.
    const total = recipient === undefined ? this.index.teamRecordCount(team) : undefined;
    return this.pageWhere(compileTeamFilter(team, recipient, this.index), offset, limit, total);
  }

  count(): number {
    return this.index.size;
  }

  /** The capture with this id, or undefined. */
  async get(id: string): Promise<MessageRecord | undefined> {
    const seq = decodeId(id);
    return seq === null ? undefined : this.load(seq);
  }

  /** One page of captures, newest first, for the sandbox API. */
  page(filter: MessageFilter, offset: number, limit: number): Promise<PageOf<MessageRecord>> {
    const unfiltered = Object.values(filter).every((value) => value === undefined || value === '');
    return this.pageWhere(compileFilter(filter, this.index), offset, limit, unfiltered ? this.index.size : undefined);
  }

  /** The sequence numbers of every capture matching the filter, newest first (numbers only: nothing is read). */
  matching(filter: MessageFilter): number[] {
    const seqs: number[] = [];
    this.index.scanNewestFirst(compileFilter(filter, this.index), (slot) => void seqs.push(this.index.seq(slot)));
    return seqs;
  }

  /** The live captures with these sequence numbers (those deleted meanwhile left out). */
  async records(seqs: readonly number[]): Promise<MessageRecord[]> {
    return (await Promise.all(seqs.map((seq) => this.load(seq)))).filter((r): r is MessageRecord => r !== undefined);
  }

  /** A test for captures that arrive later (wait-for): whether one matches the filter. */
  matcher(filter: MessageFilter): (record: MessageRecord) => boolean {
    const match = compileFilter(filter, this.index);
    return (record) => {
      const slot = this.index.slotOf(record.seq);
      return slot >= 0 && match(slot);
    };
  }

  /** Flow captures' marks (the flow engine's crash-safe record of what it already sent). */
  flowMarks(): IterableIterator<[number, FlowMark]> {
    return this.index.flowCaptures();
  }

  /** The oldest captures: at most `limit`, those created before `before` when given (retention). */
  oldest(limit: number, before?: Date): number[] {
    const cutoff = before?.getTime();
    return this.index.oldest(limit, cutoff === undefined ? undefined : (slot) => this.index.createdMs(slot) < cutoff);
  }

  /** When the oldest capture kept was created, or null when the inbox is empty. */
  oldestCreatedAt(): Date | null {
    const ms = this.index.oldestCreatedMs();
    return ms === null ? null : new Date(ms);
  }

  /** The captures of one team, one namespace, or both (a partial reset). */
  within(scope: { team?: string; namespace?: string }): number[] {
    const { team, namespace } = scope;
    return this.index.oldest(
      Number.MAX_SAFE_INTEGER,
      (slot) => (team === undefined || this.index.team(slot) === team) && (namespace === undefined || this.index.namespace(slot) === namespace),
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
    const raw = await this.raw(record);
    return parseHeaders(raw.subarray(0, MAX_HEADER_BYTES).toString('latin1'));
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
    const parser = this.options.parseRaw;
    const raw = record.content.raw;
    const parts = parser && raw ? this.part(record, raw).then((bytes) => parser.parts(bytes)) : Promise.resolve({ html: null, text: null, attachments: [] });
    parts.catch(() => this.partsCache.delete(record.seq));
    this.partsCache.set(record.seq, parts, raw?.n ?? 0);
    return parts;
  }

  /**
   * Deletes captures: their records (tombstones in the segments) and, once no capture refers to
   * them, their bytes (dead packs are deleted, mostly dead ones compacted in the background).
   */
  async remove(seqs: readonly number[]): Promise<DeletedCapture[]> {
    const removed = await this.removeQuietly(seqs);
    if (removed.length > 0) this.events.emit('message.deleted', removed);
    return removed;
  }

  /** Deletes every capture; returns how many there were. */
  async clear(): Promise<number> {
    // The counters are made safe on disk first (the segment files that named the highest ids
    // are about to go): if even that cannot be written, nothing is cleared.
    this.store.touchMeta();
    await this.store.flush({ freesSpace: true });
    const count = this.index.size;
    for (const seq of this.pending.keys()) this.scheduler.cancel('delivery', seq);
    this.pending.clear();
    this.parseQueue.length = 0;
    this.toParse.clear();
    this.toParseBytes = 0;
    this.index.clear();
    this.cache.clear();
    this.store.messages.log.clear();
    this.store.packs.releaseAll();
    await this.store.flush();
    this.events.emit('message.cleared', count);
    return count;
  }

  private async removeQuietly(seqs: readonly number[]): Promise<DeletedCapture[]> {
    const doomed = await this.forDeletion(seqs);
    if (doomed.length === 0) return [];
    // The tombstones first: if they cannot be written, the captures stay as they were (a
    // refused deletion never half happens).
    for (const { seq } of doomed) {
      this.store.messages.log.delete(seq, { volatile: true });
      this.deleting.add(seq);
    }
    try {
      await this.store.flush({ freesSpace: true });
    } finally {
      for (const { seq } of doomed) this.deleting.delete(seq);
    }
    const removed: DeletedCapture[] = [];
    let released = false;
    for (const { seq, id, refs } of doomed) {
      if (!this.index.remove(seq)) continue;
      removed.push({ seq, id });
      this.cache.delete(seq);
      this.pending.delete(seq);
      this.scheduler.cancel('delivery', seq);
      // An SMTP message not taken apart yet: its parse is no longer wanted.
      this.dropKept(seq);
      for (const ref of refs) {
        this.store.packs.release(ref);
        released = true;
      }
    }
    // Packs nothing lives in any more go with the next write (the deletion itself is on disk).
    if (released) await this.store.flush().catch(() => undefined);
    this.scheduleMaintenance();
    return removed;
  }

  /**
   * What deleting captures needs of them: their ids and where their parts are. Read from their
   * segment (one read for a batch of neighbours) without going through the cache, not taken
   * apart if they are unparsed SMTP messages, and kept no longer than that: retention deletes a
   * batch of 256 at a time, and whole records held across the deletion's write outlived the young
   * generation, so every capture pruned became old-generation garbage (2.5 times the full
   * collections per capture of the same load with retention off; bench/README.md). A capture
   * whose outcome is due is settled first, as any read of it would.
   */
  private async forDeletion(seqs: readonly number[]): Promise<Doomed[]> {
    const live = seqs.filter((seq) => this.index.has(seq));
    const cached = live.map((seq) => this.cache.get(seq));
    const read = await this.store.messages.log.readMany(live.filter((_, i) => cached[i] === undefined));
    const doomed: Doomed[] = [];
    let next = 0;
    for (const [i, seq] of live.entries()) {
      const record = cached[i] ?? read[next++];
      if (!record || !this.index.has(seq)) continue;
      this.settle(record);
      doomed.push({ seq, id: record.id, refs: contentRefs(record) });
    }
    return doomed;
  }

  /** Marks a capture read or unread (the inbox's unread state). */
  async setRead(record: MessageRecord, read: boolean): Promise<void> {
    if (record.read === read) return;
    record.read = read;
    this.index.setRead(record.seq, read);
    this.save(record);
    try {
      await this.store.flush();
    } catch (error) {
      // Refused: the capture stays as it was (the queued line writes the old state back).
      record.read = !read;
      this.index.setRead(record.seq, !read);
      throw error;
    }
    this.events.emit('message.updated', record);
  }

  /**
   * Forces a capture's delivery status (the sandbox API, docs/api-contract.md §6). A forced bounce
   * or complaint blocks the recipient as a real one does (blockOnOutcome).
   */
  async setStatus(record: MessageRecord, status: ForcedStatus): Promise<MessageRecord> {
    const before = { status: record.status, outcome: record.outcome, deliverAt: record.deliverAt, updatedAt: record.updatedAt };
    record.status = status;
    record.outcome = status;
    record.deliverAt = null;
    record.updatedAt = this.clock.now().toISOString();
    this.index.setStatus(record.seq, status);
    this.save(record);
    try {
      await this.store.flush();
    } catch (error) {
      // Refused: the capture stays as it was (the queued line writes the old state back).
      Object.assign(record, before);
      this.index.setStatus(record.seq, before.status);
      throw error;
    }
    this.scheduler.cancel('delivery', record.seq);
    this.pending.delete(record.seq);
    this.blockOnOutcome(record);
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
   * Rewrites mostly dead packs and segments, without holding up sends (runs after deletions). A
   * pack that deletions are still emptying from its oldest capture (retention, under a steady
   * load) is left to go whole once empty; looked at again a few seconds later, it is compacted
   * if it stopped emptying (a cap lowered, the load over).
   */
  async compact(): Promise<void> {
    const live = this.store.packs.liveBytes();
    const before = this.packsLive;
    this.packsLive = live;
    let waiting = false;
    for (const no of this.store.packs.compactionCandidates()) {
      const emptying = (live.get(no) ?? 0) < (before.get(no) ?? 0) && this.emptiedFromOldest(no);
      if (emptying) waiting = true;
      else await this.compactPack(no);
    }
    if (waiting) this.scheduleMaintenance(EMPTYING_RECHECK_MS);
    const logs = [this.store.messages.log, this.store.recipients.storage, this.store.subscriptions.storage, this.store.requests.log];
    for (const log of logs) for (const segment of log.compactionCandidates()) await this.store.exclusive(() => log.compact(segment));
  }

  /** Stops background work: compaction is not started again; SMTP messages being taken apart finish. */
  async close(): Promise<void> {
    if (this.maintenance) clearTimeout(this.maintenance);
    this.maintenance = null;
    while (this.parsing.size > 0 || this.parseQueue.length > 0) {
      await Promise.allSettled([...this.parsing.values()]);
      if (this.parsing.size === 0 && this.parseQueue.length > 0) await this.parsed(this.parseQueue.shift()!);
    }
  }

  /**
   * Whether the captures still in pack `no` are the oldest of the inbox, so that deletions from
   * the oldest end, as retention makes them, empty it. Compacting such a pack while they go on
   * copied its remaining parts forward, and their records, only for retention to delete them
   * soon after (9 % of the bytes of the captures pruned at the default cap). At most one pack
   * at a time is such (the one holding the oldest capture).
   */
  private emptiedFromOldest(no: number): boolean {
    const inPack = this.index.oldest(Number.MAX_SAFE_INTEGER, (slot) => this.index.usesPack(slot, no));
    const oldest = this.index.oldest(inPack.length);
    return inPack.length > 0 && inPack.every((seq, i) => seq === oldest[i]);
  }

  /**
   * Copies the live entries of pack `no` forward (to the pack being written), points their
   * captures at the copies, and lets the pack go once nothing refers to it.
   */
  private async compactPack(no: number): Promise<void> {
    this.store.packs.seal(no);
    const seqs = this.index.oldest(Number.MAX_SAFE_INTEGER, (slot) => this.index.usesPack(slot, no));
    for (let at = 0; at < seqs.length; at += 64) {
      for (const seq of seqs.slice(at, at + 64)) {
        const record = await this.load(seq);
        if (!record) continue;
        const moved: [ContentRef, ContentRef][] = [];
        const move = async (ref: ContentRef | undefined, part: number): Promise<ContentRef | undefined> => {
          if (!ref || !('p' in ref) || ref.p !== no) return ref;
          const data = await this.store.packs.read(ref, seq).catch(() => null);
          if (data === null) return ref;
          const copy = this.store.packs.add(seq, part, data, false);
          moved.push([ref, copy]);
          return copy;
        };
        const { html, text, sealed, raw, eml } = record.content;
        const content = { ...record.content };
        if (html) content.html = await move(html, PART.html);
        if (text) content.text = await move(text, PART.text);
        if (sealed) content.sealed = await move(sealed, PART.sealed);
        if (raw) content.raw = await move(raw, PART.raw);
        if (eml) content.eml = await move(eml, PART.raw);
        const attachments = await Promise.all(
          record.attachments.map(async (a, i) => (a.content ? { ...a, content: (await move(a.content, PART.attachment + i))! } : a)),
        );
        if (moved.length === 0) continue;
        // The same object the rest of the domain holds: later changes keep the new places.
        const current = (await this.load(seq)) ?? record;
        // Deleted meanwhile, or being deleted (checked with no await before the put): its record
        // must not be written after its tombstone (the last line wins: it would come back at the
        // next start, its copies counted nowhere and deleted), and the copies are dead bytes.
        if (!this.index.has(seq) || this.deleting.has(seq)) {
          for (const [, copy] of moved) this.store.packs.release(copy);
          continue;
        }
        current.content = content;
        current.attachments = attachments;
        this.index.setContent(current);
        this.store.messages.log.put(current, {
          onCommit: () => {
            for (const [old] of moved) this.store.packs.release(old);
          },
        });
      }
      await this.store.flush();
    }
    // The old pack is released as the moves are committed: the next write deletes it.
    await this.store.flush();
  }

  private scheduleMaintenance(delayMs = 1000): void {
    if (this.maintenance) return;
    this.maintenance = setTimeout(() => {
      this.maintenance = null;
      void this.compact().catch(() => undefined);
    }, delayMs);
    this.maintenance.unref();
  }

  /** A stored part's bytes. */
  private part(record: MessageRecord, ref: ContentRef): Promise<Buffer> {
    return this.store.packs.read(ref, record.seq);
  }

  /**
   * The full record of a live capture (settled if its outcome is due, its parts extracted if
   * it is an SMTP message that arrived a moment ago), or undefined.
   */
  private async load(seq: number): Promise<MessageRecord | undefined> {
    const record = await this.read(seq);
    if (!record) return undefined;
    if (record.unparsed) return this.parsed(seq);
    return this.settle(record);
  }

  /** The record as stored (one object per capture while it is cached). */
  private async read(seq: number): Promise<MessageRecord | undefined> {
    if (!this.index.has(seq)) return undefined;
    let record = this.cache.get(seq);
    if (!record) {
      record = await this.store.messages.log.read(seq);
      if (!record) return undefined;
      // Stored before namespaces: derived as the index did when it was loaded.
      if (record.namespace === undefined) record.namespace = recordNamespace(record);
      // Another read may have cached it meanwhile: one object per capture.
      record = this.cache.get(seq) ?? record;
      this.remember(record);
    }
    return record;
  }

  private queueParse(seq: number): void {
    this.parseQueue.push(seq);
    // Several at a time: each waits on the group commit that stores its parts, and those waits
    // are shared; mailparser yields between chunks, so the others use the CPU meanwhile.
    while (this.parsers < PARSERS && this.parseQueue.length > 0) {
      this.parsers++;
      void this.drainParses().finally(() => this.parsers--);
    }
  }

  private async drainParses(): Promise<void> {
    for (let seq = this.parseQueue.shift(); seq !== undefined; seq = this.parseQueue.shift()) {
      await this.parsed(seq).catch((error: unknown) => console.error(`pigeonhole: reading the parts of capture ${seq} failed`, error));
    }
  }

  /**
   * The capture with its MIME parts extracted from its raw bytes (an SMTP message): bodies and
   * attachments stored beside it, the snippet in the search text, then announced. Each capture
   * is parsed once; a reader that needs it sooner than the queue gets to it parses it now.
   */
  private parsed(seq: number): Promise<MessageRecord | undefined> {
    let running = this.parsing.get(seq);
    if (!running) {
      running = this.extractParts(seq).finally(() => {
        this.parsing.delete(seq);
        // Raw bytes kept for a parse that another reader already started are not needed either.
        this.dropKept(seq);
      });
      this.parsing.set(seq, running);
    }
    return running;
  }

  private dropKept(seq: number): { record: MessageRecord; raw: Buffer } | undefined {
    const kept = this.toParse.get(seq);
    if (kept) {
      this.toParse.delete(seq);
      this.toParseBytes -= kept.raw.length;
    }
    return kept;
  }

  private async extractParts(seq: number): Promise<MessageRecord | undefined> {
    const kept = this.dropKept(seq);
    const record = kept?.record ?? (await this.read(seq));
    if (!record?.unparsed || !record.content.raw || !this.options.parseRaw) return record && this.settle(record);
    const summary = await this.options.parseRaw.summary(kept?.raw ?? (await this.part(record, record.content.raw)));
    // Deleted while it was being looked at: nothing to keep.
    if (!this.index.has(seq)) return undefined;
    const current = this.cache.get(seq) ?? record;
    current.derived = { html: summary.html, text: summary.text };
    current.attachments = summary.attachments;
    current.snippet = summary.snippet;
    delete current.unparsed;
    this.index.setText(seq, searchText(current));
    this.save(current);
    // Parts are derived from the raw message already stored: a store that cannot write (a
    // read-only data directory) still shows them, and keeps them queued until it can.
    await this.store.flush().catch((error: unknown) => {
      if (!(error instanceof StorageError)) throw error;
    });
    this.events.emit('message.created', current);
    return this.settle(current);
  }

  /**
   * One page, newest first. With `knownTotal` (the count is kept elsewhere) the scan stops once
   * the page is full; otherwise every capture is tested, to count the matches.
   */
  private async pageWhere(match: (slot: number) => boolean, offset: number, limit: number, knownTotal?: number): Promise<PageOf<MessageRecord>> {
    const seqs: number[] = [];
    let seen = 0;
    this.index.scanNewestFirst(match, (slot) => {
      if (seen >= offset && seqs.length < limit) seqs.push(this.index.seq(slot));
      seen++;
      return knownTotal === undefined || seqs.length < limit;
    });
    const total = knownTotal ?? seen;
    const items = (await Promise.all(seqs.map((seq) => this.load(seq)))).filter((r): r is MessageRecord => r !== undefined);
    return { total, items };
  }

  private remember(record: MessageRecord): void {
    this.cache.set(record.seq, record, this.store.messages.log.storedBytes(record.seq) || UNSTORED_RECORD_BYTES);
  }

  /** Takes a capture that was never stored out of memory again. */
  private forget(seq: number): void {
    this.dropKept(seq);
    this.index.remove(seq);
    this.cache.delete(seq);
    this.pending.delete(seq);
    this.scheduler.cancel('delivery', seq);
  }

  private save(record: MessageRecord): void {
    this.store.messages.log.put(record);
  }

  /**
   * The daily limit (docs/api-contract.md §3): every email record the sender creates through the API in the UTC day
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
    this.store.touchCounters();
    return () => {
      if (daily.day === day && (daily.bySender[sender.id] ?? 0) > 0) daily.bySender[sender.id]! -= 1;
    };
  }

  /**
   * meta.json keeps the day's counts but is written lazily: start-up counts today's stored
   * captures too and keeps the larger figure, so a crash never hands a sender extra sends.
   */
  private recountDailySends(): void {
    const day = utcDay(this.clock.now());
    const start = Date.parse(`${day}T00:00:00Z`);
    const counted: Record<string, number> = {};
    this.index.scanNewestFirst(
      (slot) => this.index.createdMs(slot) >= start && this.index.source(slot) !== 'flow' && this.index.sender(slot) !== null,
      (slot) => {
        const sender = this.index.sender(slot)!;
        counted[sender] = (counted[sender] ?? 0) + 1;
      },
    );
    const daily = this.store.meta.daily;
    if (daily.day !== day) {
      daily.day = day;
      daily.bySender = {};
    }
    for (const [sender, n] of Object.entries(counted)) daily.bySender[sender] = Math.max(daily.bySender[sender] ?? 0, n);
  }

  /** A pending status becomes its outcome once the delivery delay has passed (docs/api-contract.md §6). */
  private settle(record: MessageRecord): MessageRecord {
    if (record.status !== 'pending' || record.deliverAt === null) return record;
    if (new Date(record.deliverAt).getTime() > this.clock.now().getTime()) return record;
    record.status = record.outcome;
    record.deliverAt = null;
    record.updatedAt = this.clock.now().toISOString();
    this.index.setStatus(record.seq, record.status);
    this.pending.delete(record.seq);
    this.save(record);
    this.blockOnOutcome(record);
    void this.store.flush().catch(() => undefined);
    this.events.emit('message.status', record);
    this.scheduler.cancel('delivery', record.seq);
    return record;
  }

  /** A bounce or a complaint blocks the original recipient (toolkit/delivery.ts: outcomeBlock). */
  private blockOnOutcome(record: MessageRecord): void {
    const block = outcomeBlock(record, record.status);
    if (block) this.blocks.block(block.team, block.email, block.reason);
  }

  private scheduleSettle(record: MessageRecord): void {
    const at = new Date(record.deliverAt ?? 0).getTime();
    this.pending.set(record.seq, at);
    this.scheduler.schedule('delivery', record.seq, at);
  }
}

/** The pack holding a capture's parts (0: none, every part is a file of its own). */
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
