import type {
  BlockEntry as WireBlock,
  Clock as WireClock,
  Hello,
  MessageSummary,
  Recipient,
  RequestLogEntry,
  Sender,
  Subscription,
} from '../client/pigeonhole-client.ts';
import type { BlockEntry, Blocks } from './domain/toolkit/blocks.ts';
import type { LiveTemplate } from './domain/directory/account-templates.ts';
import type { Caller } from './domain/directory/directory.ts';
import type { MessageRecord, RecipientRecord, RequestLogRecord, SubscriptionRecord } from './domain/entities.ts';
import { unwrappedState } from './domain/messages/reads.ts';
import { type ClockState, offsetText } from './domain/time/clock.ts';
import type { Subscriptions } from './domain/flows/subscriptions.ts';

/**
 * The sandbox API's and the live push's representations: each entity mapped to its snake_case
 * wire type in this one place. The types are the typed client's, generated from the wire's zod
 * schemas (server/http/openapi/schemas.ts → client/wire-types.ts) and shared with the inbox UI;
 * `satisfies` keeps every answer to them, so to the schemas the OpenAPI document shows.
 */

/** ISO-8601 UTC with whole seconds and Z, the wire format (docs/api-contract.md §1). */
export function wireTime(iso: string | Date) {
  const date = typeof iso === 'string' ? new Date(iso) : iso;
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/**
 * A capture as lists, frames and PATCH answer it. The note of a blocked capture says why the
 * address is blocked as `blocks` have it now (the record keeps only that it was).
 */
export function messageSummary(m: MessageRecord, blocks: Blocks) {
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
    namespace: m.namespace ?? null,
    template_version: m.templateVersion ?? null,
    unwrapped_body: unwrappedState(m),
    blocked_note: m.blocked ? blockedNote(m, blocks) : null,
  } satisfies MessageSummary;
}

const BLOCK_REASONS: Record<string, string> = {
  config: "it is on the team's configured block list",
  bounce: 'an earlier email to it bounced',
  complaint: 'an earlier email to it was marked as spam',
  manual: 'it was blocked by hand',
  suppressed: "a flow's suppress step blocked it",
};

/**
 * What a blocked capture means, in plain words: the service's 200 with an error beside the id
 * (docs/api-contract.md §3), the SMTP 250, or the flow step; nothing was delivered, and why.
 * A blocked send is decided on the original recipients, before any Development Mode redirect.
 */
function blockedNote(m: MessageRecord, blocks: Blocks): string {
  const team = m.team ?? 'none';
  const addresses = m.source === 'smtp' ? (m.originalTo ?? [...m.to, ...m.cc, ...m.bcc]) : [m.recipient];
  const found = m.team !== null ? addresses.map((address) => ({ address, reason: blocks.reason(team, address) })).find((b) => b.reason !== null) : undefined;
  const who = found
    ? `${found.address} is blocked for team ${team}: ${BLOCK_REASONS[found.reason!] ?? found.reason}`
    : m.source === 'smtp'
      ? `a recipient is blocked for team ${team}`
      : `${m.recipient} is blocked for team ${team}`;
  const answer =
    m.source === 'api'
      ? `The service answered 200 with {"id": "${m.id}", "error": "Recipient is blocked"}: the email was recorded (status failed) and nothing was delivered`
      : m.source === 'smtp'
        ? 'The SMTP server accepted the message (250) and recorded it as failed: nothing was delivered'
        : 'The flow step recorded this email as failed: nothing was delivered';
  return `Not delivered. ${answer}, because ${who}.`;
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
  } satisfies Recipient;
}

/** A sender as GET /api/senders lists it; `template`: the account template in use (directory/account-templates.ts). */
export function senderItem({ sender, team }: Caller, sentToday: number, template: LiveTemplate | null) {
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
    sent_today: sentToday,
    has_account_template: template !== null,
    template_version: template?.version ?? null,
    revoked: sender.revoked,
  } satisfies Sender;
}

/** A subscription as the sandbox API and the subscription.changed frame show it. */
export function subscriptionSummary(subscriptions: Subscriptions, s: SubscriptionRecord) {
  return {
    id: s.seq,
    team: s.team,
    trigger: s.flowTrigger,
    flow_name: s.flowName,
    email: s.email,
    status: s.status,
    current_step_order: s.currentStepOrder,
    next_send_date: s.status === 'active' && s.nextSendDate !== null ? wireTime(s.nextSendDate) : null,
    created_at: wireTime(s.createdAt),
    updated_at: wireTime(s.updatedAt),
    steps: subscriptions.timeline(s),
  } satisfies Subscription;
}

/** The clock's offset in a sentence: what the banner says at start-up too. */
function clockNote(offsetMs: number): string {
  return offsetMs === 0
    ? 'The sandbox clock follows real time.'
    : `The sandbox clock is ${offsetText(offsetMs)}: dates, daily limits and schedules use it. POST /api/clock/reset returns it to real time.`;
}

/** The clock as the sandbox API and the clock.changed frame show it. */
export function clockBody(state: ClockState) {
  return { now: wireTime(state.now), offset_ms: state.offsetMs, real_time: state.realTime, note: clockNote(state.offsetMs) } satisfies WireClock;
}

export function blockBody(b: BlockEntry) {
  return { team: b.team, email: b.email, reason: b.reason, created_at: b.createdAt === null ? null : wireTime(b.createdAt) } satisfies WireBlock;
}

/** A request log entry on the wire. */
export function requestBody(r: RequestLogRecord) {
  return {
    id: r.seq,
    at: r.at,
    duration_ms: r.durationMs,
    method: r.method,
    path: r.path,
    query: r.query,
    route: r.route,
    sender: r.sender,
    team: r.team,
    status: r.status,
    fault: r.fault,
    request: {
      headers: r.requestHeaders,
      body: r.requestBody,
      files: r.files.map((f) => ({ field: f.field, filename: f.filename, content_type: f.contentType, size: f.size })),
    },
    response: { body: r.responseBody },
  } satisfies RequestLogEntry;
}

/** The hello frame's data. */
export function helloBody(now: Date, total: number, smtpPort: number | null) {
  return { server_time: wireTime(now), total, smtp_port: smtpPort } satisfies Hello;
}
