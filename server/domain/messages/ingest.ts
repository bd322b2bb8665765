import type { CaptureStore } from '../../storage/capture-store.ts';
import { namespaceOf } from '../../storage/namespace.ts';
import type { Store } from '../../storage/store.ts';
import type { LiveTemplate } from '../directory/account-templates.ts';
import type { Caller } from '../directory/directory.ts';
import { normaliseFlags } from '../directory/flags.ts';
import type { Recipients } from '../directory/recipients.ts';
import { emailKey } from '../email-address.ts';
import type { MessageRecord } from '../entities.ts';
import { DailyLimitReached } from '../errors.ts';
import type { Events } from '../events.ts';
import { encodeId, sesMessageId } from '../ids.ts';
import { wrapInTemplate } from '../mail/template.ts';
import { utcDay, type Clock } from '../time/clock.ts';
import type { Scheduler } from '../time/scheduler.ts';
import type { Blocks } from '../toolkit/blocks.ts';
import type { Delivery } from './delivery-status.ts';
import { seal } from './encryption.ts';
import type { IncomingEmail, ParseQueue } from './incoming.ts';
import { captureTexts } from './snippet.ts';

/** What ingest works with: the captures, the sender's rules, and what happens after. */
export interface IngestDeps {
  store: Store;
  captures: CaptureStore;
  clock: Clock;
  recipients: Recipients;
  blocks: Blocks;
  events: Events;
  scheduler: Scheduler;
  delivery: Delivery;
  /** Takes SMTP messages apart after they are stored; without it, such captures keep only their .eml. */
  parses: ParseQueue | null;
  /** The account template a sender's send is wrapped in now (saved versions included). */
  liveTemplate: (senderId: string) => LiveTemplate | null;
}

/**
 * The one ingestion path (docs/architecture.md): API sends, SMTP messages and flow steps all end
 * here, where the sender's rules are applied (daily limit, blocks, Development Mode, the account
 * template, the recipients it makes) and the capture is stored, in one unit of work.
 */
export class Ingest {
  constructor(private readonly deps: IngestDeps) {
    this.recountDailySends();
  }

  /** Applies the sender's rules and captures the email; resolves once it is on disk. */
  async ingest(email: IncomingEmail): Promise<MessageRecord> {
    const { store, captures, clock, delivery, parses } = this.deps;
    const api = email.source === 'api' ? email : null;
    const smtp = email.source === 'smtp' ? email : null;
    const sender = email.caller?.sender ?? null;
    const team = email.caller?.team.id ?? null;
    const template = email.useAccountTemplate && sender ? this.deps.liveTemplate(sender.id) : null;
    const html = email.html === null ? null : wrapInTemplate(template?.html ?? null, email.html);
    // The body as sent is kept beside the wrapped HTML (one more part) only when a template wrapped it.
    const wrapped = html !== null && template !== null;
    const encryptionKey = api?.encryptionKey;
    // Reading uploads and sealing take time: done before the capture is given its id, so ids
    // are handed out (and captures indexed) in the order they are stored.
    const prepared = await captures.prepare({
      html,
      text: email.text,
      raw: smtp?.raw,
      sealed: encryptionKey === undefined ? null : Buffer.from(await seal(html ?? '', encryptionKey)),
      body: wrapped ? email.html : null,
      attachments: email.attachments,
    });
    const raw = smtp?.raw;
    const summary = raw === undefined ? undefined : smtp?.partsSummary;
    const deferred = raw !== undefined && summary === undefined && parses !== null;
    const now = clock.now();
    // What the unit of work changed besides the capture (the daily count, the recipients), put
    // back in reverse order when it is not stored.
    const undo: (() => void)[] = [];
    let seq = 0;
    let captured: MessageRecord;
    try {
      // One unit of work: the daily count reserved (so concurrent sends cannot overshoot), the
      // recipients made or changed, the capture added. Every capture waits for the rest of this
      // turn of the event loop, and what arrives in it shares the write (one per file): small
      // writes are synchronous (disk/fs.ts), so a write started at once had every /v1 send
      // write its pack, its capture's segment and its recipient's alone, three system calls a
      // send. Gathered: 1.51x the sends per second and 1.37x less CPU per send at the retention
      // limit (bench/README.md); SMTP captures gathered from the start (3.2 per write at 8
      // connections). A lone send waits one turn, microseconds.
      captured = await store.update(
        () => {
          undo.push(this.reserveDailySend(email, now));
          const originalTo = email.to ?? [email.recipient];
          const originals = uniqueAddresses([email.recipient, ...originalTo, ...(email.cc ?? []), ...(email.bcc ?? [])]);
          // Blocked is decided on the original recipients, before any Development Mode redirect (docs/api-contract.md §3);
          // a message to several (SMTP) is blocked as a whole when any of them is.
          const blocked = team !== null && originals.some((address) => this.deps.blocks.isBlocked(team, address));
          const flags = normaliseFlags(api?.flags);
          if (team !== null && !blocked) {
            const named = { firstName: api?.firstName, lastName: api?.lastName, flags, sent: true };
            undo.push(this.deps.recipients.applyUndoably(team, email.recipient, named).undo);
            for (const address of originals.slice(1)) undo.push(this.deps.recipients.applyUndoably(team, address, { sent: true }).undo);
          }
          const redirected = sender?.developmentMode === true && sender.developmentRecipient !== null;
          // Development Mode sends everything to one address: Cc and Bcc are redirected too.
          const to = redirected ? [sender.developmentRecipient!] : originalTo;
          const cc = redirected ? [] : (email.cc ?? []);
          const bcc = redirected ? [] : (email.bcc ?? []);
          seq = captures.nextSeq();
          // An encrypted send keeps no more of its text in the clear than the snippet it always had.
          const { snippet, bodyText } = summary ?? captureTexts(email.text, html, email.html);
          const texts = { snippet, ...(bodyText === undefined || encryptionKey !== undefined ? {} : { bodyText }) };
          const planned = delivery.planned(blocked, to[0] ?? cc[0] ?? bcc[0] ?? email.recipient, now);
          const record = captures.add(seq, prepared, (stored) => ({
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
            firstName: api?.firstName ?? null,
            lastName: api?.lastName ?? null,
            flags,
            usedTemplate: wrapped,
            ...(wrapped && template ? { templateVersion: template.version } : {}),
            redirected,
            ...(redirected ? { originalTo: originals } : {}),
            // From the addresses as the sender gave them, so a Development Mode redirect keeps it.
            namespace: namespaceOf([...originalTo, ...(email.cc ?? []), ...(email.bcc ?? []), email.recipient]),
            blocked,
            ...planned,
            sesId: sesMessageId(now),
            encrypted: encryptionKey !== undefined,
            content: stored.content,
            ...(deferred ? { unparsed: true as const } : {}),
            ...(summary ? { derived: { html: summary.html, text: summary.text } } : {}),
            ...(smtp?.client ? { client: smtp.client } : {}),
            attachments:
              summary?.attachments ??
              email.attachments.map((a, index) => ({
                content: stored.attachments[index]!.ref,
                filename: a.filename,
                contentType: a.contentType,
                size: stored.attachments[index]!.size,
                ...(a.contentId ? { contentId: a.contentId } : {}),
              })),
            ...texts,
            flow: email.source === 'flow' ? email.flow : null,
            read: false,
            createdAt: now.toISOString(),
            updatedAt: now.toISOString(),
          }));
          // Kept for its parse, from before anyone can read the capture (a reader may start it).
          if (deferred) parses.keep(record, raw);
          delivery.arrived(record);
          return record;
        },
        {
          gather: true,
          // Not stored: the daily count is given back, and the recipients it made or changed are as they were.
          undo: () => {
            for (const step of undo.reverse()) step();
          },
        },
      );
    } catch (error) {
      // Not stored: the capture never existed (its id is not handed out again).
      if (seq > 0) {
        parses?.drop(seq);
        delivery.forget(seq);
      }
      captures.discard(seq, prepared);
      throw error;
    }
    if (deferred) {
      // Announced once its parts are extracted (message.created comes from the parse).
      parses.add(captured.seq);
      return captured;
    }
    this.deps.events.emit('message.created', captured);
    // Flags given with a send may end a flow's wait: let that run before the caller answers.
    if (email.source !== 'flow' && captured.flags.length > 0) await this.deps.scheduler.settle();
    return captured;
  }

  /**
   * The sender's daily limit when it is already used up today, else null: lets SMTP refuse at
   * MAIL FROM, before the client sends the message (the count itself is taken by ingest).
   */
  dailyLimitReached(caller: Caller): number | null {
    const { sender } = caller;
    if (sender.dailyLimit === null) return null;
    const used = this.deps.store.daily.used(sender.id, utcDay(this.deps.clock.now()));
    return used >= sender.dailyLimit ? sender.dailyLimit : null;
  }

  /** How many sends the sender has counted against its daily limit today (sandbox clock). */
  sentToday(senderId: string): number {
    return this.deps.store.daily.used(senderId, utcDay(this.deps.clock.now()));
  }

  /**
   * Starts the given senders' daily counts over (every sender's when undefined), for a shared
   * sandbox whose suites would otherwise run out (issue 27); resolves with how many had a count
   * once that is on disk. Captures stay: start-up counts only those made since.
   */
  resetDailyCounts(senders: ReadonlySet<string> | undefined): Promise<number> {
    const { store, clock } = this.deps;
    return store.update(() => store.daily.startOver(senders, utcDay(clock.now())), { undo: store.daily.restorer() });
  }

  /**
   * The daily limit (docs/api-contract.md §3): every email record the sender creates through the API in the UTC day
   * of the sandbox clock counts, blocked ones included. Reserved in the send's unit of work so
   * concurrent sends cannot overshoot; the undo gives it back if the send is not stored.
   */
  private reserveDailySend(email: IncomingEmail, now: Date): () => void {
    const sender = email.caller?.sender;
    if (!sender || email.source === 'flow') return () => undefined;
    const release = this.deps.store.daily.reserve(sender.id, utcDay(now), sender.dailyLimit);
    if (release === null) throw new DailyLimitReached(sender.dailyLimit!);
    return release;
  }

  /**
   * The store keeps the day's counts but writes them lazily: start-up counts today's stored
   * captures too and keeps the larger figure, so a crash never hands a sender extra sends.
   */
  private recountDailySends(): void {
    const { index } = this.deps.captures;
    const day = utcDay(this.deps.clock.now());
    const start = Date.parse(`${day}T00:00:00Z`);
    const { daily } = this.deps.store;
    const counted: Record<string, number> = {};
    index.scanNewestFirst(
      (slot) => index.createdMs(slot) >= start && index.source(slot) !== 'flow' && index.sender(slot) !== null,
      (slot) => {
        const sender = index.sender(slot)!;
        // Counted again only since the sender's count was last started over.
        if (index.seq(slot) <= daily.startedOverAfter(sender, day)) return;
        counted[sender] = (counted[sender] ?? 0) + 1;
      },
    );
    daily.atLeast(day, counted);
  }
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
