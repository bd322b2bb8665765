import type { ContentRef } from './packs/pack-store.ts';

export type { ContentRef } from './packs/pack-store.ts';

/** The shapes kept on disk. Field names are ours (camelCase); wire names are mapped in http/. */

/** How a capture arrived. */
export const SOURCES = ['api', 'smtp', 'flow'] as const;
export type Source = (typeof SOURCES)[number];
/** A capture's delivery status (docs/api-contract.md §6); the message index stores its position here. */
export const DELIVERY_STATUSES = ['pending', 'delivered', 'bounced', 'complained', 'failed'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];
export const SUBSCRIPTION_STATUSES = ['active', 'completed', 'cancelled'] as const;
type SubscriptionStatus = (typeof SUBSCRIPTION_STATUSES)[number];

export interface AttachmentRecord {
  /** Where its bytes are stored; absent: taken from the raw message when read (SMTP captures). */
  content?: ContentRef;
  filename: string;
  contentType: string;
  size: number;
  /** Content-ID for inline parts (cid: references), when the sender gave one. */
  contentId?: string;
}

export interface MessageRecord {
  seq: number;
  /** The id the API returned (Sqids of seq). */
  id: string;
  source: Source;
  team: string | null;
  sender: string | null;
  from: string;
  /** The address the sender asked for (first of `to` for SMTP). */
  recipient: string;
  /** Where the capture went: after a Development Mode redirect, the development address. */
  to: string[];
  cc: string[];
  bcc: string[];
  subject: string;
  firstName: string | null;
  lastName: string | null;
  flags: string[];
  /** Whether the sender's account template wrapped the body. */
  usedTemplate: boolean;
  /**
   * The version of the account template that wrapped it (0: the configured one); absent when none
   * did, and on captures stored before template versions (whose body as sent was not kept).
   */
  templateVersion?: number;
  redirected: boolean;
  /** Every address the sender asked for, when Development Mode redirected them (X-Original-To). */
  originalTo?: string[];
  /**
   * The capture's namespace (storage/namespace.ts): the first `+tag` among the addresses it was
   * sent to; null when none. Absent on captures stored before namespaces (derived when loaded).
   */
  namespace?: string | null;
  blocked: boolean;
  status: DeliveryStatus;
  /** When a pending status turns into its outcome (sandbox clock). */
  deliverAt: string | null;
  outcome: DeliveryStatus;
  sesId: string;
  /** The /v1 record body is encrypted at rest (Encryption-Key, docs/api-contract.md §3). */
  encrypted: boolean;
  /** Where the bodies are stored; a part that is absent was not given. */
  content: MessageContent;
  /**
   * An SMTP message whose MIME parts (bodies, attachments, snippet) are not looked at yet: that
   * happens right after it is stored, and before anything reads it.
   */
  unparsed?: true;
  /** The SMTP client that delivered it: its address and the name it gave in HELO/EHLO. */
  client?: { address: string; helo: string };
  /**
   * An SMTP message whose bodies and attachments are read from its raw bytes (parsed when
   * asked for) rather than stored twice: which bodies it has.
   */
  derived?: { html: boolean; text: boolean };
  attachments: AttachmentRecord[];
  /** The start of the body text, for list previews and search (absent on older captures). */
  snippet?: string;
  /**
   * The body's text for search (its first 1,000 characters, before any account template), when
   * it says more than the snippet; absent when the snippet is all of it, on encrypted sends and
   * on older captures.
   */
  bodyText?: string;
  flow: FlowMark | null;
  read: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface MessageContent {
  html?: ContentRef;
  text?: ContentRef;
  /** The sealed /v1 record body of an encrypted send. */
  sealed?: ContentRef;
  /**
   * The message exactly as the SMTP client sent it (the trace fields Pigeonhole adds on top are
   * made from the record when the .eml is read). API and flow captures have none: their .eml is
   * built from the parts when asked for, the same bytes every time.
   */
  raw?: ContentRef;
  /** The whole .eml as an older version stored it (moved over as it was). */
  eml?: ContentRef;
  /** The HTML body as the sender gave it, before the account template wrapped it (only when one did). */
  body?: ContentRef;
}

/** Which flow step captured an email. */
export interface FlowMark {
  trigger: string;
  /** The step's order (1-based). */
  step: number;
  /**
   * The subscription and its step count when the step ran: the engine's proof, after a crash,
   * that this step's email was already captured (so it is never sent twice).
   */
  subscription?: number;
  run?: number;
}

export interface RecipientRecord {
  seq: number;
  sqid: string;
  team: string;
  email: string;
  firstName: string;
  lastName: string;
  flags: string[];
  hasBeenSentEmail: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface SubscriptionRecord {
  seq: number;
  team: string;
  flowTrigger: string;
  flowName: string;
  email: string;
  status: SubscriptionStatus;
  /** The step that runs next, or is waiting; after completion, the last step that ran. */
  currentStepOrder: number;
  /** When the current step runs (a wait: when it times out); null unless active. */
  nextSendDate: string | null;
  createdAt: string;
  updatedAt: string;
  /** The current step is a wait that has started (records from before the engine lack it). */
  waiting?: boolean;
  /** The flag that ends the current wait early. */
  waitFlag?: string | null;
  /** How many steps have run; the key that makes a send step idempotent across a crash. */
  run?: number;
  /** Orders of the steps that have run, for the timeline. */
  doneSteps?: number[];
}

export interface BlockRecord {
  team: string;
  email: string;
  /** `suppressed`: a flow's suppress action. */
  reason: 'bounce' | 'complaint' | 'manual' | 'suppressed';
  createdAt: string;
}

/** One /v1 request and its response, secrets masked (the sandbox's request log). */
export interface RequestLogRecord {
  seq: number;
  at: string;
  durationMs: number;
  method: string;
  path: string;
  query: Record<string, string | string[]>;
  /** The route the request resolved to ("/v1/email/detail/:id/"), null for an unknown path. */
  route: string | null;
  /** Sender id of a valid API key (never the key). */
  sender: string | null;
  team: string | null;
  /** Null when the connection was dropped by a fault. */
  status: number | null;
  /** Id of the fault rule that answered or delayed the request. */
  fault: string | null;
  requestHeaders: Record<string, string>;
  requestBody: unknown;
  files: { field: string; filename: string; contentType: string; size: number }[];
  responseBody: unknown;
}

/** What the request log keeps in memory per entry: what its filters need (the rest is on disk). */
export type RequestSummary = Pick<RequestLogRecord, 'seq' | 'method' | 'path' | 'sender' | 'team' | 'status' | 'fault'>;

export interface MetaData {
  /** 1: bodies as files under blobs/ and segments of 128; 2: packs and segment logs. */
  version: 1 | 2;
  counters: { message: number; recipient: number; subscription: number; request?: number };
  /**
   * Emails each sender created through the API on `day` (UTC, sandbox clock); `resetAfter`: the
   * last capture id (seq) handed out when a sender's count was started over that day, so
   * start-up, which counts the day's captures again, counts only those made since.
   */
  daily: { day: string; bySender: Record<string, number>; resetAfter?: Record<string, number> };
  /** The sandbox clock's offset from real time (absent: real time). */
  clockOffsetMs?: number;
  /** Sequence numbers per segment file, recorded when the store was made (absent: 1,024; segment-size.ts). */
  segmentSize?: number;
}

/** A saved version of a sender's account template (the configured one is version 0, never stored). */
export interface TemplateVersionRecord {
  version: number;
  html: string;
  savedAt: string;
}

/**
 * The designers' workbench (workbench.json): each sender's saved account template versions and
 * which one is in use, and the sample data kept per template file. Replaced whole inside a unit
 * of work (Store.workbench), small and bounded by the domain (versions per sender, bytes per entry).
 */
export interface WorkbenchData {
  templates: Record<string, { current: number; next: number; versions: TemplateVersionRecord[] }>;
  samples: Record<string, { data: Record<string, unknown>; savedAt: string }>;
}

export interface BlocksData {
  blocks: BlockRecord[];
  /** Configured blocks lifted through the sandbox API, until a reset restores the fixtures. */
  lifted?: { team: string; email: string }[];
}

/** Every stored part of a capture: its bodies, raw message and attachments. */
export function contentRefs(record: MessageRecord): ContentRef[] {
  const refs: ContentRef[] = [];
  const { html, text, sealed, raw, eml, body } = record.content;
  for (const ref of [html, text, sealed, raw, eml, body]) if (ref) refs.push(ref);
  for (const attachment of record.attachments) if (attachment.content) refs.push(attachment.content);
  return refs;
}
