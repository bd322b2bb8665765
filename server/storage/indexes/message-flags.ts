import { DELIVERY_STATUSES, type DeliveryStatus, type MessageRecord, type Source } from '../records.ts';

/** The captures' compact index (message-index.ts) keeps a word of flags per capture. */
export const SOURCES: readonly Source[] = ['api', 'smtp', 'flow'];
export const STATUSES: readonly DeliveryStatus[] = DELIVERY_STATUSES;

/** One 16-bit word of flags per capture: its source, status, and what else a filter asks. */
export const SOURCE_MASK = 0b11;
export const STATUS_SHIFT = 2;
export const STATUS_MASK = 0b111 << STATUS_SHIFT;
export const BLOCKED = 1 << 5;
export const REDIRECTED = 1 << 6;
export const READ = 1 << 7;
export const DEAD = 1 << 8;
/** An SMTP capture whose MIME parts were not extracted yet (record.unparsed). */
export const UNPARSED = 1 << 9;
/**
 * Every stored part of the capture lies in a pack (none in a file of its own), so the index's
 * pack bytes are all a deletion releases: retention prunes it without reading its record. Not
 * set on rows restored from checkpoints taken before the flag: those are read, as before.
 */
export const PACKED = 1 << 10;

export const SMTP = SOURCES.indexOf('smtp');
export const PENDING = STATUSES.indexOf('pending') << STATUS_SHIFT;

/** A capture's word of flags. */
export function flagsOf(record: MessageRecord): number {
  return (
    SOURCES.indexOf(record.source) |
    (STATUSES.indexOf(record.status) << STATUS_SHIFT) |
    (record.blocked ? BLOCKED : 0) |
    (record.redirected ? REDIRECTED : 0) |
    (record.read ? READ : 0) |
    (record.unparsed ? UNPARSED : 0)
  );
}
