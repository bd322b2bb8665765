import { createHash } from 'node:crypto';
import type { AttachmentRecord, MessageRecord } from '../entities.ts';
import { buildMime } from '../mail/mime.ts';

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
