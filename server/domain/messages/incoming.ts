import type { IncomingPart } from '../../storage/packs/capture-parts.ts';
import type { AttachmentRecord, FlowMark, MessageRecord } from '../entities.ts';
import type { Caller } from '../directory/directory.ts';

export type IncomingAttachment = IncomingPart;

/** What every way in gives: who sends, to whom, and the content as it arrives. */
interface IncomingBase {
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
  useAccountTemplate: boolean;
}

/** A send through the /v1 API. */
interface ApiEmail extends IncomingBase {
  source: 'api';
  firstName?: string;
  lastName?: string;
  flags?: string[];
  encryptionKey?: string;
}

/** A message an SMTP client delivered. */
interface SmtpEmail extends IncomingBase {
  source: 'smtp';
  /**
   * The message as the SMTP client sent it, kept as the capture's .eml; its bodies and
   * attachments are in it (not in html, text and attachments): they are extracted right after
   * it is stored, and the capture is announced (message.created) once they are.
   */
  raw?: Buffer;
  /**
   * What `raw`'s parts are, when the SMTP layer could tell without a full parse: the capture is
   * then stored complete and announced at once, with no parse after it.
   */
  partsSummary?: PartsSummary;
  /** The SMTP client that delivered it (shown in the .eml's Received field). */
  client?: { address: string; helo: string };
}

/** A flow's send_email step. */
interface FlowEmail extends IncomingBase {
  source: 'flow';
  /** The flow, step, subscription and run that sent it (the engine's crash-safe record). */
  flow: FlowMark;
}

/** What the ingestion path takes in, by where it came from. */
export type IncomingEmail = ApiEmail | SmtpEmail | FlowEmail;

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
  /** The body's text for search, when it says more than the snippet (snippet.ts). */
  bodyText?: string;
  attachments: Omit<AttachmentRecord, 'content'>[];
}

/** Takes SMTP messages apart (the SMTP layer's mailparser, in a worker thread). */
export interface RawParser {
  /** Which bodies, the snippet and the attachments' names and sizes. */
  summary(raw: Buffer): Promise<PartsSummary>;
  /** The bodies and attachments themselves. */
  parts(raw: Buffer): Promise<MessageParts>;
  /** The queue that takes SMTP captures apart after they are stored (server/smtp/parse-queue.ts). */
  queue(captures: UnparsedCaptures): ParseQueue;
}

/** What the parse queue needs of the captures (the messages' side of it). */
export interface UnparsedCaptures {
  /** The capture as stored, or undefined once it is deleted. */
  read(seq: number): Promise<MessageRecord | undefined>;
  /** Its raw bytes, read back from where they are stored. */
  raw(record: MessageRecord): Promise<Buffer>;
  /**
   * Stores what the parse found (null: it was taken apart already, or has no raw bytes) and
   * announces the capture; resolves with it as a reader sees it (undefined: deleted meanwhile).
   */
  parsed(seq: number, record: MessageRecord, summary: PartsSummary | null): Promise<MessageRecord | undefined>;
}

/** SMTP captures stored before their parts were known, taken apart a few at a time. */
export interface ParseQueue {
  /** Keeps a new capture's raw bytes in memory for its parse (when there is room), before anyone can read it. */
  keep(record: MessageRecord, raw: Buffer): void;
  /** Queues a capture to be taken apart. */
  add(seq: number): void;
  /** The capture taken apart: now, when the queue has not got to it yet (each is parsed once). */
  parsed(seq: number): Promise<MessageRecord | undefined>;
  /** Lets a capture go (deleted, or never stored): its kept bytes are dropped. */
  drop(seq: number): void;
  /** Lets every capture go (the inbox cleared). */
  clear(): void;
  /** Resolves once the captures queued and being taken apart are done. */
  close(): Promise<void>;
}
