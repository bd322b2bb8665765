import type { MessageRecord } from '../storage/records.ts';
import type { BlobStore } from '../storage/blobs.ts';
import { seal } from './encryption.ts';
import { buildMime } from './mime.ts';

/** The files a capture owns, beside its record (design.md, Storage). */
export const BODY_HTML = 'body.html';
export const BODY_TEXT = 'body.txt';
export const RAW = 'message.eml';
export const SEALED = 'record.enc';

export interface CaptureContent {
  html: string | null;
  text: string | null;
  attachments: { tempPath?: string; content?: Buffer }[];
  encryptionKey?: string;
  /** The message exactly as an SMTP client sent it; the .eml is rebuilt from parts otherwise. */
  raw?: Buffer;
  /** Every address the sender asked for, shown in X-Original-To when Development Mode redirected. */
  originalRecipients: string[];
}

/**
 * Writes a capture's bodies, attachments and .eml. The attachment list on the record must
 * already name each blob; sizes are filled in from the written files.
 */
export async function writeCaptureFiles(blobs: BlobStore, record: MessageRecord, content: CaptureContent, now: Date): Promise<void> {
  const writes: Promise<void>[] = [];
  if (content.html !== null) writes.push(blobs.write(record.seq, BODY_HTML, content.html));
  if (content.text !== null) writes.push(blobs.write(record.seq, BODY_TEXT, content.text));
  if (record.encrypted) writes.push(seal(content.html ?? '', content.encryptionKey!).then((sealed) => blobs.write(record.seq, SEALED, sealed)));
  record.attachments.forEach((attachment, index) => {
    const source = content.attachments[index]!;
    writes.push(source.tempPath ? blobs.adopt(record.seq, attachment.blob, source.tempPath) : blobs.write(record.seq, attachment.blob, source.content ?? Buffer.alloc(0)));
  });
  await Promise.all(writes);
  await Promise.all(record.attachments.map(async (a) => (a.size = await blobs.size(record.seq, a.blob))));
  const headers: Record<string, string> = { 'X-Pigeonhole-ID': record.id, 'X-Pigeonhole-Source': record.source };
  if (record.redirected) headers['X-Original-To'] = content.originalRecipients.join(', ');
  if (content.raw) {
    // Trace fields go on top, the way a receiving MTA adds Received and Delivered-To: the rest
    // is byte for byte what the client sent.
    const trace = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join('');
    await blobs.write(record.seq, RAW, Buffer.concat([Buffer.from(trace, 'utf8'), content.raw]));
    return;
  }
  const raw = await buildMime({
    messageId: `<${record.id}.${record.seq}@pigeonhole.local>`,
    date: now,
    from: record.from,
    to: record.to,
    cc: record.cc,
    subject: record.subject,
    html: content.html,
    text: content.text,
    attachments: record.attachments.map((a) => ({ ...a, path: blobs.file(record.seq, a.blob) })),
    headers,
  });
  await blobs.write(record.seq, RAW, raw);
}

/** Every file a capture may own; removing one that was never written is harmless. */
export function blobNames(record: MessageRecord): string[] {
  return [BODY_HTML, BODY_TEXT, RAW, SEALED, ...record.attachments.map((a) => a.blob)];
}
