import type { Context } from 'koa';
import { decodeId } from '../../domain/ids.ts';
import type { MessageFilter } from '../../domain/messages/message-filter.ts';
import type { Sandbox } from '../../domain/sandbox.ts';
import type { DeliveryStatus, MessageRecord, Source } from '../../storage/records.ts';
import { detail, notFound } from '../errors.ts';
import { bool, oneOf, senderId, team, text } from './params.ts';

export const SOURCES: readonly Source[] = ['api', 'smtp', 'flow'];
export const STATUSES: readonly DeliveryStatus[] = ['pending', 'delivered', 'bounced', 'complained', 'failed'];

/**
 * The filters every capture list and lookup takes (the inbox list, search, latest, wait-for),
 * read from the query string into one MessageFilter; a bad value is a 400.
 */
export function filterFrom(ctx: Context, sandbox: Sandbox): MessageFilter {
  const since = text(ctx, 'since');
  const sinceDate = since === undefined ? undefined : new Date(since);
  if (sinceDate && Number.isNaN(sinceDate.getTime())) throw detail(400, 'since must be an ISO-8601 time, e.g. 2026-02-17T12:00:00Z.');
  const after = text(ctx, 'after');
  if (after !== undefined && decodeId(after) === null) throw detail(400, `after must be a message id ("${after}" is not one).`);
  return {
    recipient: text(ctx, 'recipient'),
    subject: text(ctx, 'subject'),
    q: text(ctx, 'q'),
    sender: senderId(sandbox, text(ctx, 'sender')),
    team: team(sandbox, text(ctx, 'team')),
    source: oneOf(text(ctx, 'source'), 'source', SOURCES),
    status: oneOf(text(ctx, 'status'), 'status', STATUSES),
    blocked: bool(text(ctx, 'blocked'), 'blocked', undefined),
    redirected: bool(text(ctx, 'redirected'), 'redirected', undefined),
    read: bool(text(ctx, 'read'), 'read', undefined),
    since: sinceDate,
    afterId: after,
  };
}

/** The capture with this id, or a JSON 404. */
export async function findMessage(sandbox: Sandbox, id: string): Promise<MessageRecord> {
  const record = await sandbox.messages.get(id);
  if (!record) throw notFound();
  return record;
}
