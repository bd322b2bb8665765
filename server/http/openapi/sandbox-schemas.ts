import { z } from 'zod';
import { REFUSAL_KINDS } from '../../domain/messages/refused-sends.ts';
import { BlockReason, DeliveryStatus, SmtpStage, Source, StepState, SubscriptionStatus, UnwrappedBody, int, time } from './wire-basics.ts';

/** The sandbox API's wire types (docs/sandbox-api.md). Part of the wire's schemas (schemas.ts). */

export const MessageSummary = z
  .object({
    id: z.string(),
    source: Source,
    team: z.string().nullable(),
    sender: z.string().nullable().describe('Sender id.'),
    from: z.string(),
    recipient: z.string().describe('The original recipient.'),
    to: z.array(z.string()).describe('Where the capture went (the development address after a redirect).'),
    cc: z.array(z.string()),
    bcc: z.array(z.string()),
    subject: z.string(),
    snippet: z.string().describe('The start of the body text (up to 200 characters).'),
    status: DeliveryStatus,
    blocked: z.boolean(),
    redirected: z.boolean(),
    read: z.boolean(),
    attachment_count: int(),
    created_at: time('Capture time.'),
    namespace: z.string().nullable().describe('The first `+tag` of its To, Cc, Bcc addresses, lower-case; null when none (docs/testing.md).'),
    blocked_note: z
      .string()
      .nullable()
      .describe(
        'Null unless blocked; then what happened in plain words: the service answered 200 with `"error": "Recipient is blocked"` (or SMTP 250), recorded the email as failed and delivered nothing, and which address is blocked for which team and why (its block as it is now).',
      ),
    template_version: int()
      .nullable()
      .describe(
        "The version of the sender's account template that wrapped the body (0: the configuration file's); null when no template wrapped it, or it was wrapped before versions were kept.",
      ),
    unwrapped_body: UnwrappedBody,
  })
  .meta({ id: 'MessageSummary' });
const page = { total: int(), offset: int(), limit: int() };
/** The paging fields of every sandbox API list (limit/offset, newest first). */
export const Page = z.object(page);
export const MessageList = z.object({ ...page, messages: z.array(MessageSummary) }).meta({ id: 'MessageList' });
export const Link = z.object({ href: z.string(), text: z.string() }).meta({ id: 'Link' });
export const Extracted = z
  .object({ links: z.array(Link), codes: z.array(z.string()).describe('One-time codes, in order of appearance.') })
  .meta({ id: 'Extracted' });
const bodies = {
  html: z.string().nullable(),
  text: z.string().nullable().describe('The plain part, or the HTML rendered as text when there is none.'),
  text_derived: z.boolean().describe('True when text was rendered from the HTML because the capture has no plain part.'),
};
export const Capture = z
  .object({ ...MessageSummary.shape, ...Extracted.shape, ...bodies, url: z.string().describe('The full detail: GET this.') })
  .meta({ id: 'Capture', description: 'A capture with its bodies and what was extracted from them.' });
export const ExpectResult = z
  .object({
    count: int().describe('How many captures matched.'),
    messages: z.array(Capture).describe('The matches, newest first, at most 50.'),
  })
  .meta({ id: 'ExpectResult' });
export const RefusedSend = z
  .object({
    request: int().describe('The request log entry (GET /api/requests).'),
    at: time('When it was answered (sandbox time).'),
    status: int().nullable().describe('The status answered; null when a fault rule dropped the connection.'),
    kind: z.enum(REFUSAL_KINDS),
    reason: z.string().describe("The answer's own words: its error, detail or field errors."),
    sender: z.string().nullable().describe('The sender of its API key; null for a key the sandbox does not know.'),
    recipient: z.string().nullable(),
    subject: z.string().nullable(),
    fault: z.string().nullable().describe('The fault rule that answered, if one did.'),
  })
  .meta({
    id: 'RefusedSend',
    description:
      'A send through /v1 that made no capture the wait could see, yet would have matched its filters: refused (429 daily limit, 401, 403, 400, a fault) or, when the status filter leaves out `failed`, blocked.',
  });
export const RefusedSmtp = z
  .object({
    at: time('When it was refused (sandbox time).'),
    code: int().describe('The reply code the SMTP client got (535, 452, ...).'),
    kind: z.enum(REFUSAL_KINDS),
    reason: z.string().describe('The reply text ("5.7.8 Authentication failed: ...").'),
    stage: z.enum(['connect', 'auth', 'mail', 'rcpt', 'data']).describe('The command refused: the connection, AUTH, MAIL FROM, RCPT TO or the message (DATA).'),
    sender: z.string().nullable().describe('The sender the session had logged in as; null before (or without) AUTH.'),
    mail_from: z.string().nullable().describe('MAIL FROM, once given.'),
    recipients: z.array(z.string()).describe('The RCPT TO addresses by then (the refused one too; the first 100); empty when refused before any.'),
  })
  .meta({
    id: 'RefusedSmtp',
    description:
      'An SMTP command the sandbox refused that could have carried the message (its sender, recipients and time fit the filters; one refused before any RCPT TO fits every recipient).',
  });
const refused = z
  .array(RefusedSend)
  .optional()
  .describe('Only when there are some: the refused sends that would have matched, newest first (at most 10; `detail` gives their number).');
const smtpRefused = z
  .array(RefusedSmtp)
  .optional()
  .describe('Only when there are some: the refused SMTP commands that could have carried the message, newest first (at most 10; `detail` gives their number).');
export const ExpectFailure = z
  .object({ detail: z.string(), ...ExpectResult.shape, refused, smtp_refused: smtpRefused })
  .meta({ id: 'ExpectFailure', description: 'More matched than expected (409), or fewer by the end (408).' });
export const WaitFailure = z
  .object({ detail: z.string(), refused, smtp_refused: smtpRefused })
  .meta({ id: 'WaitFailure', description: 'Nothing matched within the timeout (408), and the refused sends that would have.' });
export const SearchResult = z.object({ ...MessageSummary.shape, ...Extracted.shape, url: z.string() }).meta({ id: 'SearchResult' });
export const CaptureSearch = z.object({ ...page, messages: z.array(SearchResult) }).meta({ id: 'CaptureSearch' });
export const FlowMark = z.object({ trigger: z.string(), step: int(), subscription: int().optional(), run: int().optional() });
export const HeaderField = z.object({ name: z.string(), value: z.string() });
export const AttachmentInfo = z.object({ filename: z.string(), content_type: z.string(), size: int(), content_id: z.string().nullable(), url: z.string() });
export const MessageDetail = z
  .object({
    ...MessageSummary.shape,
    ...Extracted.shape,
    first_name: z.string().nullable(),
    last_name: z.string().nullable(),
    flags: z.array(z.string()),
    used_template: z.boolean().describe("The sender's account template wrapped the body."),
    unwrapped_html: z
      .string()
      .nullable()
      .describe(
        'The HTML body as the sender gave it, before the account template wrapped it; null when unwrapped_body is not_kept, or the capture has no HTML.',
      ),
    ses_id: z.string(),
    encrypted: z.boolean().describe('The /v1 record body is encrypted at rest (Encryption-Key).'),
    flow: FlowMark.nullable().describe('The flow step that sent it.'),
    ...bodies,
    has_remote_content: z.boolean().describe('The HTML refers to images, styles or fonts on other hosts.'),
    headers: z.array(HeaderField).describe('From the stored .eml, unfolded and decoded.'),
    raw_url: z.string(),
    html_url: z.string().nullable(),
    text_url: z.string().nullable(),
    attachments: z.array(AttachmentInfo).describe('100 at most, from `?attachments_from` (default 0); `attachment_count` says how many there are in all.'),
  })
  .meta({ id: 'MessageDetail' });

/** What a fault rule does when it fires (the MCP tool add_fault takes the same). */
export const FaultAction = z.union([
  z.object({ type: z.literal('status'), status: z.literal([429, 500, 503]) }).describe('Answer /v1 with this status and the contract body.'),
  z.object({ type: z.literal('delay'), ms: int().min(0).max(120000) }).describe('Hold the request or SMTP command, then go on.'),
  z.object({ type: z.literal('drop') }).describe('Cut the connection without an answer.'),
  z.object({ type: z.literal('smtp_reply'), code: int().min(400).max(599), message: z.string() }).describe('Refuse the SMTP command with this reply.'),
  z
    .object({
      type: z.literal('rate_limit'),
      rate: z.number().meta({ exclusiveMinimum: 0 }).describe('Requests (SMTP: messages) a second per API key, on average.'),
      burst: int().min(1).optional().describe('Requests allowed at once (the bucket size); default: one second of the rate, at least 1.'),
    })
    .describe(
      'A token bucket per API key. Over it: /v1 answers 429 {"error": "Request was throttled. Expected available in N seconds."} with Retry-After: N; SMTP answers MAIL FROM with 421 4.7.0 and the seconds to wait, and closes the session.',
    ),
]);
const faultMatch = z.object({
  route: z.string().optional().describe('http: a /v1 route or path, `*` as wildcard ("/v1/email/send/", "/v1/email/*").'),
  method: z.enum(['GET', 'POST', 'DELETE']).optional(),
  sender: z.string().optional().describe('Sender id (an API key is accepted and stored as its sender id).'),
  recipient: z.string().optional().describe('Glob (`*`, `?`, case-insensitive) or /regex/flags, matched against the recipient (or email) of the request.'),
  stage: SmtpStage.optional().describe('smtp only.'),
});
const faultRule = {
  target: z.enum(['http', 'smtp']),
  match: faultMatch,
  action: FaultAction,
  times: int().min(1).optional().describe('Fire for the next N matching requests only.'),
  probability: z.number().min(0).max(1).optional().describe('Chance to fire per match, drawn from a seeded generator.'),
  seed: int().optional().describe('Seed of the generator (chosen and shown when not given).'),
};
/** A rule as POST /api/faults takes it (validated by the domain's faultRuleSchema; test/client/wire-types.test.ts keeps the two the same). */
export const FaultRuleInput = z.object({ id: z.string().optional(), ...faultRule, match: faultMatch.optional() });
export const FaultRule = z
  .object({
    id: z.string(),
    ...faultRule,
    source: z.enum(['config', 'api']).describe('config: from the configuration file; api: added through /api/faults.'),
    matched: int().describe('Matching requests so far.'),
    fired: int().describe('Times fired so far.'),
    remaining: int().nullable().describe('Fires left when times is set.'),
  })
  .meta({ id: 'FaultRule' });
export const BlockEntry = z
  .object({
    team: z.string(),
    email: z.string(),
    reason: BlockReason,
    created_at: time('Null for configured blocks.').nullable(),
  })
  .meta({ id: 'BlockEntry' });
export const RequestLogEntry = z
  .object({
    id: int(),
    at: time('When the request arrived (sandbox clock, milliseconds).'),
    duration_ms: z.number(),
    method: z.string(),
    path: z.string(),
    query: z.record(z.string(), z.union([z.string(), z.array(z.string())])),
    route: z.string().nullable().describe('The /v1 route it resolved to.'),
    sender: z.string().nullable().describe('Sender id of a valid key (never the key).'),
    team: z.string().nullable(),
    status: int().nullable().describe('Null when a fault dropped the connection.'),
    fault: z.string().nullable().describe('Id of the fault rule that answered or delayed it.'),
    request: z.object({
      headers: z.record(z.string(), z.string()).describe('Authorization and Encryption-Key masked.'),
      body: z.unknown().describe('The parsed body, secret fields masked, strings over 4096 characters cut; null without a body.'),
      files: z.array(z.object({ field: z.string(), filename: z.string(), content_type: z.string(), size: int() })),
    }),
    response: z.object({ body: z.unknown().describe('The JSON sent back (null for 204 or a dropped connection).') }),
  })
  .meta({ id: 'RequestLogEntry' });
export const RequestLogList = z.object({ ...page, requests: z.array(RequestLogEntry) }).meta({ id: 'RequestLogList' });
export const Clock = z
  .object({
    now: time('Sandbox time.'),
    offset_ms: int().describe('Milliseconds ahead of real time (stored: it outlives restarts).'),
    real_time: z.boolean(),
    note: z.string().describe('The offset in words, e.g. "The sandbox clock is 12 days ahead of real time: ..."; the start-up banner says the same.'),
  })
  .meta({ id: 'Clock' });
export const Sender = z
  .object({
    team: z.string(),
    team_name: z.string(),
    id: z.string(),
    name: z.string(),
    email: z.string(),
    api_key: z.string(),
    development_mode: z.boolean(),
    development_recipient: z.string().nullable(),
    daily_limit: int().nullable(),
    sent_today: int().describe("Sends counted against the daily limit in the sandbox clock's UTC day (DELETE /api/senders/daily-counts starts it over)."),
    has_account_template: z.boolean().describe('An account template is in use (configured or saved through /api).'),
    template_version: int().nullable().describe("The account template version in use (0: the configuration file's); null when it has none."),
    revoked: z.boolean(),
  })
  .meta({ id: 'Sender' });
export const TemplateVersion = z
  .object({
    sender: z.string(),
    version: int().describe("0: the configuration file's; saved versions count from 1."),
    html: z.string().nullable().describe('The template, with {{content}} where the body goes; null: version 0 of a sender configured without one.'),
    saved_at: time('When it was saved (sandbox clock); null for version 0.').nullable(),
    current: z.boolean().describe('The version the next send is wrapped in.'),
  })
  .meta({ id: 'TemplateVersion' });
export const TemplateVersions = z
  .object({
    sender: z.string(),
    current: int().describe('The version in use.'),
    versions: z.array(TemplateVersion).describe('Version 0 first, then oldest first.'),
  })
  .meta({ id: 'TemplateVersions' });
export const RewrappedCapture = z
  .object({
    id: z.string(),
    subject: z.string(),
    created_at: time('Capture time.'),
    template_version: int().nullable().describe('The version that wrapped it when it was captured (null: none, or unknown).'),
    unwrapped_body: UnwrappedBody,
    html: z
      .string()
      .nullable()
      .describe('Its body as sent, wrapped in the draft exactly as a send would be; null when unwrapped_body is not_kept or it has no HTML.'),
  })
  .meta({ id: 'RewrappedCapture' });
export const TemplateFileInfo = z
  .object({
    name: z.string().describe('Its path in the --templates folder, `/` between folders.'),
    size: int(),
    modified_at: time('Its last change.'),
    has_sample: z.boolean().describe('Sample data is kept for it.'),
  })
  .meta({ id: 'TemplateFileInfo' });
export const TemplateFileList = z
  .object({
    dir: z.string().nullable().describe('The --templates folder; null when Pigeonhole was started without one.'),
    files: z.array(TemplateFileInfo).describe('Its .html files by name, at most 1,000.'),
    truncated: z.boolean().describe('The folder holds more .html files than listed.'),
  })
  .meta({ id: 'TemplateFileList' });
export const TemplateFile = z
  .object({
    name: z.string(),
    sender: z.string().nullable().describe('The sender whose account template wraps it; null: not wrapped.'),
    template_version: int().nullable().describe("That sender's template version (0: the configuration file's); null: not wrapped."),
    html: z.string().describe('The file as it is on disk.'),
    rendered: z.string().describe("The file with its {{variables}} filled from the sample data (HTML-escaped), wrapped in the sender's template."),
    variables: z.array(z.string()).describe('The {{variables}} it uses, in order of first use.'),
    missing: z.array(z.string()).describe('Those the sample data gives no value for (left as they are).'),
    sample: z.record(z.string(), z.unknown()).describe('The sample data kept for it ({} when none).'),
    modified_at: time('Its last change.'),
  })
  .meta({ id: 'TemplateFile' });
export const Released = z
  .object({
    id: z.string(),
    to: z.array(z.string()).describe('The envelope recipients it was relayed to.'),
    relay: z.string().describe('The relay, smtp://host:port.'),
    accepted: z.array(z.string()).describe('The recipients the relay accepted.'),
    rejected: z.array(z.string()).describe('The recipients the relay refused (the others were still sent).'),
    response: z.string().describe("The relay's last answer, e.g. 250 OK: queued."),
  })
  .meta({ id: 'Released' });
export const Rewrap = z.object({ sender: z.string(), captures: z.array(RewrappedCapture) }).meta({ id: 'Rewrap' });
export const SandboxRecipient = z
  .object({
    team: z.string(),
    email: z.string(),
    first_name: z.string(),
    last_name: z.string(),
    flags: z.array(z.string()),
    blocked: z.boolean(),
    block_reason: BlockReason.nullable().describe("config: the team's list; suppressed: a flow's suppress action."),
    has_been_sent_email: z.boolean(),
    created_at: time(),
    updated_at: time(),
  })
  .meta({ id: 'SandboxRecipient' });
export const RecipientList = z.object({ ...page, recipients: z.array(SandboxRecipient) }).meta({ id: 'SandboxRecipientList' });
export const SubscriptionStep = z.object({
  order: int(),
  name: z.string().nullable(),
  type: z.enum(['send_email', 'wait', 'condition', 'action']),
  state: StepState,
  summary: z.string(),
});
export const SandboxSubscription = z
  .object({
    id: int(),
    team: z.string(),
    trigger: z.string(),
    flow_name: z.string(),
    email: z.string(),
    status: SubscriptionStatus,
    current_step_order: int(),
    next_send_date: time('Null unless active.').nullable(),
    created_at: time(),
    updated_at: time(),
    steps: z.array(SubscriptionStep),
  })
  .meta({ id: 'SandboxSubscription' });
export const SubscriptionList = z.object({ ...page, subscriptions: z.array(SandboxSubscription) }).meta({ id: 'SandboxSubscriptionList' });
export const Removed = z
  .record(z.string(), int())
  .describe('What each part removed: subscriptions, messages, recipients, blocks, daily_counters, requests, faults, clock.');
export const ResetResult = z.object({
  team: z.string().nullable(),
  namespace: z.string().nullable().describe('The namespace reset, or null.'),
  restore_fixtures: z.boolean(),
  removed: Removed,
});
