import { createHash } from 'node:crypto';
import { readFile, stat, unlink } from 'node:fs/promises';
import { PART, type ContentRef, type PackStore } from '../../storage/pack-store.ts';
import type { AttachmentRecord, MessageContent, MessageRecord } from '../entities.ts';
import { seal } from './encryption.ts';
import { buildMime } from '../mail/mime.ts';

/** An attachment as it arrives: a temporary upload to move in, or its bytes. */
export interface IncomingPart {
  filename: string;
  contentType: string;
  tempPath?: string;
  content?: Buffer;
  contentId?: string;
}

/** One part of a capture, ready to store: bytes for a pack, or a large one already in a file of its own. */
type PreparedPart = { data: Buffer } | { ref: ContentRef; size: number };

/** A capture's bytes, read, sealed and (when large) written before the capture gets its id. */
export interface PreparedContent {
  html: PreparedPart | null;
  text: PreparedPart | null;
  sealed: PreparedPart | null;
  raw: PreparedPart | null;
  attachments: PreparedPart[];
}

/**
 * Everything asynchronous about a capture's content, done before it is given its id (ids are
 * handed out, and captures indexed, in order): uploads read, the /v1 record body sealed, and
 * parts of `largePartSize` or more moved or written into files of their own.
 */
export async function prepareContent(
  packs: PackStore,
  input: { html: string | null; text: string | null; raw?: Buffer; encryptionKey?: string; attachments: IncomingPart[] },
): Promise<PreparedContent> {
  const part = async (data: Buffer | null): Promise<PreparedPart | null> => {
    if (data === null) return null;
    return packs.isLarge(data.length) ? { ref: await packs.addFile(data), size: data.length } : { data };
  };
  const attachments = await Promise.all(
    input.attachments.map(async (a): Promise<PreparedPart> => {
      if (!a.tempPath) return (await part(a.content ?? Buffer.alloc(0)))!;
      const size = (await stat(a.tempPath)).size;
      if (packs.isLarge(size)) return { ref: await packs.adopt(a.tempPath, size), size };
      const data = await readFile(a.tempPath);
      await unlink(a.tempPath).catch(() => undefined);
      return { data };
    }),
  );
  const sealed = input.encryptionKey === undefined ? null : Buffer.from(await seal(input.html ?? '', input.encryptionKey));
  return {
    html: await part(input.html === null ? null : Buffer.from(input.html)),
    text: await part(input.text === null ? null : Buffer.from(input.text)),
    sealed: await part(sealed),
    raw: await part(input.raw ?? null),
    attachments,
  };
}

/**
 * Queues the prepared parts of capture `seq` in the pack (no waiting); says where each is.
 * Volatile (a new capture): rolled back if the write fails; otherwise written again.
 */
export function storeContent(
  packs: PackStore,
  seq: number,
  prepared: PreparedContent,
  volatile = true,
): { content: MessageContent; attachments: { ref: ContentRef; size: number }[] } {
  const put = (part: PreparedPart, code: number) => ('ref' in part ? part : { ref: packs.add(seq, code, part.data, volatile), size: part.data.length });
  const content: MessageContent = {};
  if (prepared.html) content.html = put(prepared.html, PART.html).ref;
  if (prepared.text) content.text = put(prepared.text, PART.text).ref;
  if (prepared.sealed) content.sealed = put(prepared.sealed, PART.sealed).ref;
  if (prepared.raw) content.raw = put(prepared.raw, PART.raw).ref;
  return { content, attachments: prepared.attachments.map((a, index) => put(a, PART.attachment + index)) };
}

/** Parts already written to files of their own: removed again when the capture is rolled back. */
export function preparedFiles(prepared: PreparedContent): ContentRef[] {
  return [prepared.html, prepared.text, prepared.sealed, prepared.raw, ...prepared.attachments].flatMap((p) => (p && 'ref' in p ? [p.ref] : []));
}

/**
 * The .eml of an API or flow capture, built from its parts when it is asked for (the bytes
 * a recipient would receive). The same capture gives the same bytes every time: the date and
 * Message-ID come from the record and the MIME boundaries from its id.
 */
export async function buildEml(
  record: MessageRecord,
  parts: { html: string | null; text: string | null; attachments: { attachment: AttachmentRecord; data: Buffer }[] },
): Promise<Buffer> {
  return buildMime({
    messageId: `<${record.id}.${record.seq}@pigeonhole.local>`,
    date: new Date(record.createdAt),
    from: record.from,
    to: record.to,
    cc: record.cc,
    subject: record.subject,
    html: parts.html,
    text: parts.text,
    attachments: parts.attachments.map(({ attachment, data }) => ({
      filename: attachment.filename,
      contentType: attachment.contentType,
      content: data,
      contentId: attachment.contentId,
    })),
    headers: traceFields(record),
    baseBoundary: createHash('sha256').update(`${record.seq}:${record.id}:${record.createdAt}`).digest('hex').slice(0, 16),
  });
}

/**
 * The fields Pigeonhole adds to a capture's .eml, the way a receiving server adds Received and
 * Delivered-To: its id, its source, and where Development Mode took it from.
 */
function traceFields(record: MessageRecord): Record<string, string> {
  const fields: Record<string, string> = {};
  // The client's address as it connected (no reverse DNS lookup is made: it can hold a
  // connection for seconds), and the name it gave, as a receiving server records them.
  if (record.client)
    fields.Received = `from ${record.client.helo || 'unknown'} ([${record.client.address}]) by pigeonhole with ESMTP id ${record.id}; ${new Date(record.createdAt).toUTCString().replace('GMT', '+0000')}`;
  fields['X-Pigeonhole-ID'] = record.id;
  fields['X-Pigeonhole-Source'] = record.source;
  if (record.redirected) fields['X-Original-To'] = (record.originalTo ?? [record.recipient]).join(', ');
  return fields;
}

/** An SMTP capture's .eml: the trace fields on top, then the client's bytes as they came. */
export function withTrace(record: MessageRecord, raw: Buffer): Buffer {
  const trace = Object.entries(traceFields(record))
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  return Buffer.concat([Buffer.from(trace, 'utf8'), raw]);
}
