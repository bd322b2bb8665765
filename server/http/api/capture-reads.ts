import type { MessageDetail } from '../../../client/pigeonhole-client.ts';
import type { MessageRecord } from '../../domain/entities.ts';

/**
 * How much of a body the reads that work on it (links and codes, the text rendered from the
 * HTML, the remote-content flag) take: its first 256 KB of characters (docs/security.md, "Huge
 * captures"). Reading a 15 MB HTML part whole held the event loop 2.4 s (issue 28, finding 9);
 * real mail is far smaller (Gmail clips at 102 KB). The body itself is still served whole.
 */
const READ_LIMIT = 256 * 1024;

/** The part of a body the reads work on. */
export function readPart(body: string | null): string | null {
  return body !== null && body.length > READ_LIMIT ? body.slice(0, READ_LIMIT) : body;
}

/** Attachments one capture's detail lists at most; `attachment_count` says how many in all. */
export const ATTACHMENTS_PAGE = 100;

/** The capture's attachments from `from` on, ATTACHMENTS_PAGE at most. */
export function attachmentPage(record: MessageRecord, from: number): MessageDetail['attachments'] {
  return record.attachments.slice(from, from + ATTACHMENTS_PAGE).map((a, offset) => ({
    filename: a.filename,
    content_type: a.contentType,
    size: a.size,
    content_id: a.contentId ?? null,
    url: attachmentUrl(record, from + offset),
  }));
}

export function attachmentUrl(record: MessageRecord, index: number): string {
  return `/api/messages/${record.id}/attachments/${index}`;
}
