import type { Capture } from '../../../client/pigeonhole-client.ts';
import { DELIVERY_STATUSES, SOURCES, type MessageRecord } from '../../domain/entities.ts';
import { extract } from '../../domain/mail/extract.ts';
import { textView } from '../../domain/mail/text-view.ts';
import type { MessageFilter } from '../../domain/messages/message-filter.ts';
import type { Sandbox } from '../../domain/sandbox.ts';
import { messageSummary } from '../../api-representations.ts';
import { readPart } from './capture-reads.ts';
import { captureId, namespace, oneOf, sender, since, team, text } from './input-fields.ts';

/**
 * The filters every capture list and lookup takes (the inbox list, search, latest, wait-for),
 * in the order they are checked.
 */
export function filters(sandbox: Sandbox) {
  return {
    since: since().describe('Only captures created at or after this ISO-8601 time.'),
    after: captureId('after').describe('Only captures after the capture with this id (newer).'),
    namespace: namespace().describe('Only captures of this namespace: the `+tag` of an address (docs/testing.md), any case.'),
    recipient: text().describe('Any address on the capture: original recipient, To, Cc or Bcc (any case).'),
    subject: text().describe('Case-insensitive substring of the subject.'),
    q: text().describe("Words, each found in the subject, an address, the From, the sender id or the body's text (its first 1,000 characters)."),
    sender: sender(sandbox).describe('Sender id, or an API key (resolved to its sender).'),
    team: team(sandbox).describe('Team id.'),
    source: oneOf('source', SOURCES).describe('How it arrived.'),
    status: oneOf('status', DELIVERY_STATUSES).describe('Delivery status.'),
  };
}

export type FilterQuery = {
  since?: Date;
  after?: string;
  namespace?: string;
  recipient?: string;
  subject?: string;
  q?: string;
  sender?: string;
  team?: string;
} & Pick<MessageFilter, 'source' | 'status' | 'blocked' | 'redirected' | 'read'>;

export function messageFilter({ since: sinceDate, after, ...rest }: FilterQuery): MessageFilter {
  return { ...rest, since: sinceDate, afterId: after };
}

/**
 * A capture with its bodies and what was extracted from them: one call gives a test everything.
 * `text` is the plain part, or the HTML rendered as text when there is none (`text_derived`).
 */
export async function capture(sandbox: Sandbox, record: MessageRecord): Promise<Capture> {
  const [html, body] = await Promise.all([sandbox.messages.html(record), sandbox.messages.text(record)]);
  const view = await textView(readPart(html), body);
  return {
    ...messageSummary(record, sandbox.blocks),
    html,
    text: view.text,
    text_derived: view.derived,
    ...extract(readPart(html), readPart(body)),
    url: captureUrl(record),
  } satisfies Capture;
}

export function captureUrl(record: MessageRecord): string {
  return `/api/messages/${record.id}`;
}
