import type { Blocks } from '../../domain/toolkit/blocks.ts';
import { wireTime } from '../../domain/flows/clock.ts';
import type { Caller } from '../../domain/directory/directory.ts';
import type { MessageRecord, RecipientRecord, SubscriptionRecord } from '../../storage/records.ts';

/** The sandbox API's snake_case representations, each mapped in this one place. */

/** A capture as lists, frames and PATCH answer it. */
export function messageSummary(m: MessageRecord) {
  return {
    id: m.id,
    source: m.source,
    team: m.team,
    sender: m.sender,
    from: m.from,
    recipient: m.recipient,
    to: m.to,
    cc: m.cc,
    bcc: m.bcc,
    subject: m.subject,
    snippet: m.snippet ?? '',
    status: m.status,
    blocked: m.blocked,
    redirected: m.redirected,
    read: m.read,
    attachment_count: m.attachments.length,
    created_at: wireTime(m.createdAt),
  };
}

/** A recipient as GET /api/recipients and the recipient.changed frame give it. */
export function recipientItem(r: RecipientRecord, blocks: Blocks) {
  const reason = blocks.reason(r.team, r.email);
  return {
    team: r.team,
    email: r.email,
    first_name: r.firstName,
    last_name: r.lastName,
    flags: r.flags,
    blocked: reason !== null,
    block_reason: reason,
    has_been_sent_email: r.hasBeenSentEmail,
    created_at: wireTime(r.createdAt),
    updated_at: wireTime(r.updatedAt),
  };
}

export function senderItem({ sender, team }: Caller) {
  return {
    team: team.id,
    team_name: team.name,
    id: sender.id,
    name: sender.name,
    email: sender.email,
    api_key: sender.apiKey,
    development_mode: sender.developmentMode,
    development_recipient: sender.developmentRecipient,
    daily_limit: sender.dailyLimit,
    has_account_template: sender.accountTemplate !== null,
    revoked: sender.revoked,
  };
}

