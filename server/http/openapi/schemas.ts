import { z } from 'zod';
import { DELIVERY_STATUSES, FORCED_STATUSES, SOURCES, SUBSCRIPTION_STATUSES } from '../../domain/entities.ts';
import { REFUSAL_KINDS } from '../../domain/messages/refused-sends.ts';

/**
 * The wire's schemas, written once: the error bodies of both APIs, the /v1 representations, the
 * sandbox API's and the live push's wire types. The OpenAPI document shows them; the MCP tools
 * take their inputs from them; and the typed client's wire types (client/wire-types.ts, which the
 * server's `satisfies`, the live push's frames and the inbox UI use) are generated from them by
 * `npm run generate` (scripts/generate-wire-types.ts; `wireTypes` below names each one).
 */

const time = (description?: string) => z.string().meta({ format: 'date-time', ...(description ? { description } : {}) });
const int = () => z.number().int();

// The enumerations of the wire (the typed client gets the first four as a list and a type).

export const Source = z.enum(SOURCES).describe('How a capture arrived.');
export const DeliveryStatus = z.enum(DELIVERY_STATUSES).describe("A capture's delivery status.");
export const ForcedStatus = z.enum(FORCED_STATUSES).describe('The statuses a capture can be forced to (POST /api/messages/<id>/status).');
export const SubscriptionStatus = z.enum(SUBSCRIPTION_STATUSES).describe("A flow subscription's status.");
const BlockReason = z
  .enum(['config', 'bounce', 'complaint', 'manual', 'suppressed'])
  .describe("Why an address is blocked. config: the team's configured list; suppressed: a flow's suppress action.");
const SmtpStage = z.enum(['connect', 'auth', 'mail', 'rcpt', 'data']);
const StepState = z.enum(['done', 'current', 'pending', 'skipped']);
export const CheckPlatform = z.enum(['desktop', 'web', 'mobile']);
const ClientSupport = z.enum(['yes', 'partial', 'no']);

// Error bodies.

export const Detail = z.object({ detail: z.string() }).meta({ id: 'Detail', description: 'The error body of most endpoints: {"detail": "<message>"}.' });
export const ErrorBody = z.object({ error: z.string() }).meta({ id: 'Error', description: 'The error body of a few /v1 endpoints: {"error": "<message>"}.' });
export const FieldErrors = z.record(z.string(), z.array(z.string())).meta({
  id: 'FieldErrors',
  description: 'Field errors: each failing field with a list of messages, several fields in one object (docs/api-contract.md §1).',
});
export const NonFieldErrors = z
  .object({ non_field_errors: z.array(z.string()) })
  .meta({ id: 'NonFieldErrors', description: 'A JSON body that is not an object.' });

// /v1 representations (http/v1/wire.ts builds them).

export const EmailId = z
  .object({
    id: z.string().describe('Short Sqids id, e.g. "JDT".'),
    error: z.string().optional().describe('Only for a blocked recipient: "Recipient is blocked".'),
  })
  .meta({ id: 'EmailId' });
const EmailListItem = z
  .object({ recipient: z.string(), subject: z.string(), created_on: time('ISO-8601 UTC, whole seconds, Z.') })
  .meta({ id: 'EmailListItem' });
const pageLinks = { count: int(), next: z.string().meta({ format: 'uri' }).nullable(), previous: z.string().meta({ format: 'uri' }).nullable() };
export const EmailList = z.object({ ...pageLinks, results: z.array(EmailListItem) }).meta({ id: 'EmailList' });
export const EmailDetail = z
  .object({
    recipient: z.string(),
    subject: z.string(),
    created_on: time('Creation time.'),
    body: z.string().describe('HTML as delivered, or enc:v1:<base64> when encrypted and no Encryption-Key was given.'),
  })
  .meta({ id: 'EmailDetail' });
export const Delivery = z.object({ id: z.string(), status: DeliveryStatus, ses_id: z.string().describe('SES-style message id.') }).meta({ id: 'Delivery' });
export const Subscribed = z.object({ detail: z.string(), subscription_id: int() }).meta({ id: 'Subscribed' });
export const V1Subscription = z
  .object({
    id: int(),
    flow_name: z.string(),
    flow_trigger: z.string(),
    recipient_email: z.string(),
    status: SubscriptionStatus,
    current_step_order: int(),
    next_send_date: time('Null unless active.').nullable(),
    created_at: time('Creation time.'),
    updated_at: time('Last change.'),
  })
  .meta({ id: 'Subscription' });
export const V1Recipient = z
  .object({
    sqid: z.string(),
    email: z.string(),
    first_name: z.string(),
    last_name: z.string(),
    flags: z.array(z.string()),
    has_been_sent_email: z.boolean(),
    created_at: time('Creation time.'),
    updated_at: time('Last change.'),
  })
  .meta({ id: 'Recipient' });
export const V1RecipientList = z.object({ ...pageLinks, results: z.array(V1Recipient) }).meta({ id: 'RecipientList' });
export const FlagsMessage = z.object({ message: z.string() }).meta({ id: 'Message' });

// The sandbox API's wire types.

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
  })
  .meta({ id: 'MessageSummary' });
const page = { total: int(), offset: int(), limit: int() };
/** The paging fields of every sandbox API list (limit/offset, newest first). */
const Page = z.object(page);
export const MessageList = z.object({ ...page, messages: z.array(MessageSummary) }).meta({ id: 'MessageList' });
const Link = z.object({ href: z.string(), text: z.string() }).meta({ id: 'Link' });
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
const RefusedSend = z
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
const refused = z
  .array(RefusedSend)
  .optional()
  .describe('Only when there are some: the refused sends that would have matched, newest first (at most 10; `detail` gives their number).');
export const ExpectFailure = z
  .object({ detail: z.string(), ...ExpectResult.shape, refused })
  .meta({ id: 'ExpectFailure', description: 'More matched than expected (409), or fewer by the end (408).' });
export const WaitFailure = z
  .object({ detail: z.string(), refused })
  .meta({ id: 'WaitFailure', description: 'Nothing matched within the timeout (408), and the refused sends that would have.' });
const SearchResult = z.object({ ...MessageSummary.shape, ...Extracted.shape, url: z.string() }).meta({ id: 'SearchResult' });
export const CaptureSearch = z.object({ ...page, messages: z.array(SearchResult) }).meta({ id: 'CaptureSearch' });
const FlowMark = z.object({ trigger: z.string(), step: int(), subscription: int().optional(), run: int().optional() });
const HeaderField = z.object({ name: z.string(), value: z.string() });
const AttachmentInfo = z.object({ filename: z.string(), content_type: z.string(), size: int(), content_id: z.string().nullable(), url: z.string() });
export const MessageDetail = z
  .object({
    ...MessageSummary.shape,
    ...Extracted.shape,
    first_name: z.string().nullable(),
    last_name: z.string().nullable(),
    flags: z.array(z.string()),
    used_template: z.boolean().describe("The sender's account template wrapped the body."),
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
const FaultAction = z.union([
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
const RequestLogEntry = z
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
    has_account_template: z.boolean(),
    revoked: z.boolean(),
  })
  .meta({ id: 'Sender' });
const SandboxRecipient = z
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
const SubscriptionStep = z.object({
  order: int(),
  name: z.string().nullable(),
  type: z.enum(['send_email', 'wait', 'condition', 'action']),
  state: StepState,
  summary: z.string(),
});
const SandboxSubscription = z
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
const Removed = z
  .record(z.string(), int())
  .describe('What each part removed: subscriptions, messages, recipients, blocks, daily_counters, requests, faults, clock.');
export const ResetResult = z.object({
  team: z.string().nullable(),
  namespace: z.string().nullable().describe('The namespace reset, or null.'),
  restore_fixtures: z.boolean(),
  removed: Removed,
});

// The checks (docs/checks.md).

const num = () => z.number();
const EmailClient = z
  .object({
    id: z.string().describe('family.platform as caniemail names them, e.g. gmail.android, outlook.windows.'),
    name: z.string(),
    family: z.string(),
    platform: CheckPlatform,
    market_share: num().describe('Percent of opens used by market_score (0: no figure).'),
  })
  .meta({ id: 'EmailClient' });
const CompatibilityWarning = z
  .object({
    feature: z.string().describe('caniemail slug, e.g. css-display-flex.'),
    title: z.string(),
    category: z.string().describe("html, css, image or others (caniemail's categories)."),
    severity: z.enum(['error', 'warning']).describe('error: a client considered has no support; warning: partial support only.'),
    url: z.string().meta({ format: 'uri' }).describe('The caniemail.com page.'),
    count: int().describe('Occurrences in the HTML.'),
    lines: z.array(int()).describe('Lines of the HTML where it occurs (the first 200).'),
    support: z.record(z.string(), ClientSupport).describe('Each client considered (by id), from its most recent test.'),
    notes: z.record(z.string(), z.string()).describe("caniemail's note for a client, where its support has one."),
    unsupported_pct: num().describe('Percent of tested client versions with no support (Mailpit counts every version).'),
    partial_pct: num(),
    market_unsupported_pct: num().describe('Percent of opens, by market share, in clients with no support.'),
    market_partial_pct: num(),
  })
  .meta({ id: 'CompatibilityWarning' });
const Compatibility = z
  .object({
    score: num().describe(
      "0–100, Mailpit's worst case: 100 minus the worst partial and the worst unsupported share, each weighted by how often its feature occurs.",
    ),
    market_score: num().describe('0–100, the same formula with clients weighted by their share of opens.'),
    data: z.object({ source: z.string(), version: z.string(), license: z.string(), date: z.string().describe('The date of the caniemail data.') }),
    platforms: z.array(CheckPlatform),
    nodes: int().describe('Elements counted, the denominator of the frequencies.'),
    warnings: z.array(CompatibilityWarning).describe('Costliest first.'),
    clients: z.array(EmailClient),
  })
  .meta({ id: 'Compatibility' });
const SizeReport = z
  .object({
    html_bytes: int(),
    text_bytes: int(),
    message_bytes: int().describe('The whole .eml (a draft: its parts).'),
    gmail_clip_bytes: int().describe('102 KB: Gmail clips HTML past this.'),
    gmail_clipped: z.boolean(),
    attachments: z.object({
      count: int(),
      bytes: int(),
      encoded_bytes: int().describe('As base64 in the message.'),
      limits: z.array(z.object({ provider: z.string(), limit_bytes: int(), over: z.boolean() })),
    }),
  })
  .meta({ id: 'SizeReport' });
const AccessibilityIssue = z
  .object({
    rule: z.string().describe('img-alt, html-lang, layout-table, link-text, heading-order, text-alternative, small-text, or an html-validate rule id.'),
    severity: z.enum(['error', 'warning']),
    message: z.string(),
    line: int().nullable(),
    source: z.enum(['pigeonhole', 'html-validate']),
    url: z.string().meta({ format: 'uri' }).optional(),
  })
  .meta({ id: 'AccessibilityIssue' });
const DarkMode = z
  .object({
    color_scheme: z.string().nullable().describe('The content of <meta name="color-scheme">.'),
    has_dark_styles: z.boolean().describe('@media (prefers-color-scheme: dark) styles exist.'),
    findings: z.array(z.object({ rule: z.enum(['color-scheme-meta', 'no-dark-styles', 'light-background']), message: z.string(), line: int().nullable() })),
  })
  .meta({ id: 'DarkMode' });
const HeadersReport = z
  .object({
    bulk: z.boolean().describe('Precedence bulk/list, List-Id or List-Unsubscribe.'),
    findings: z.array(z.object({ header: z.string(), status: z.enum(['ok', 'warning', 'error']), value: z.string().nullable(), message: z.string() })),
  })
  .meta({ id: 'HeadersReport' });
const SpamReport = z
  .object({
    score: num(),
    threshold: num().describe('spamd required_score.'),
    is_spam: z.boolean(),
    rules: z.array(z.object({ name: z.string(), score: num(), description: z.string() })),
    spamd: z.string().describe('The spamd asked (HOST:PORT).'),
  })
  .meta({ id: 'SpamReport' });
export const CheckReport = z
  .object({
    html: Compatibility.nullable(),
    size: SizeReport,
    accessibility: z.object({ issues: z.array(AccessibilityIssue) }),
    dark_mode: DarkMode.nullable(),
    headers: HeadersReport.nullable(),
    spam: SpamReport.nullable(),
    spam_note: z.string().nullable().describe('Why spam is null: how to turn it on, or what went wrong with spamd.'),
  })
  .meta({ id: 'CheckReport' });
export const MessageCheck = z.object({ id: z.string(), ...CheckReport.shape }).meta({ id: 'MessageCheck' });
const LinkResult = z
  .object({
    url: z.string(),
    kind: z.enum(['link', 'image']),
    lines: z.array(int()),
    status: int().nullable().describe('The final answer; null without one.'),
    ok: z.boolean().describe('Answered below 400 after redirects.'),
    final_url: z.string(),
    redirects: int(),
    method: z.enum(['HEAD', 'GET']).describe('GET when HEAD was refused (405, 501).'),
    time_ms: int(),
    error: z.string().nullable(),
  })
  .meta({ id: 'LinkResult' });
const linkCounts = { total: int(), broken: int(), skipped: int().describe('URLs of other schemes, or relative, not checked.') };
export const LinkCheck = z.object({ ...linkCounts, links: z.array(LinkResult) });
/** One line of the link check's stream (`Accept: application/x-ndjson`): the start, each link as it is checked, the end. */
const LinkEvent = z.union([
  z.object({ type: z.literal('start'), total: int(), skipped: linkCounts.skipped }),
  z.object({ type: z.literal('link'), ...LinkResult.shape }),
  z.object({ type: z.literal('done'), ...linkCounts }),
]);

// The live push (/api/events, docs/live-push.md): frames `{type, data}`.

const Hello = z
  .object({
    server_time: time('Sandbox time.'),
    total: int().describe('How many captures there are.'),
    smtp_port: int().nullable().describe('The SMTP port, for the getting-started help.'),
  })
  .describe('The hello frame: the sandbox clock, how many captures there are, the SMTP port.');
const frame = <T extends string, D extends z.ZodType>(type: T, data: D) => z.object({ type: z.literal(type), data });
const Frame = z
  .union([
    frame('hello', Hello),
    z.object({ type: z.enum(['message.created', 'message.status', 'message.updated']), data: MessageSummary }),
    frame('message.deleted', z.object({ ids: z.array(z.string()) })),
    frame('message.cleared', z.object({ count: int() })),
    frame('recipient.changed', SandboxRecipient),
    frame('subscription.changed', SandboxSubscription),
    frame('subscription.removed', z.object({ id: int() })),
    frame('clock.changed', Clock),
    frame('sandbox.reset', ResetResult.pick({ team: true, namespace: true, removed: true })),
  ])
  .describe('Frames pushed on the /api/events WebSocket, `{type, data}`.');

/**
 * The typed client's wire types, each under the name client/wire-types.ts gives it (some differ
 * from the document's component names, e.g. SandboxRecipient is the client's Recipient), and the
 * enumerations the client also exports as lists. Generated with `npm run generate`.
 */
export const wireTypes = {
  types: {
    Source,
    DeliveryStatus,
    ForcedStatus,
    SubscriptionStatus,
    BlockReason,
    SmtpStage,
    StepState,
    CheckPlatform,
    ClientSupport,
    MessageSummary,
    Link,
    Extracted,
    Capture,
    ExpectResult,
    ExpectFailure,
    RefusedSend,
    WaitFailure,
    SearchResult,
    AttachmentInfo,
    HeaderField,
    FlowMark,
    MessageDetail,
    Page,
    MessageList,
    SearchPage: CaptureSearch,
    Removed,
    ResetResult,
    BlockEntry,
    FaultAction,
    FaultRuleInput,
    FaultRule,
    RequestLogEntry,
    RequestLogList,
    Clock,
    Sender,
    Recipient: SandboxRecipient,
    RecipientList,
    SubscriptionStep,
    Subscription: SandboxSubscription,
    SubscriptionList,
    EmailClient,
    CompatibilityWarning,
    Compatibility,
    SizeReport,
    AccessibilityIssue,
    DarkMode,
    HeadersReport,
    SpamReport,
    CheckReport,
    LinkCheckResult: LinkResult,
    LinkCheck,
    LinkEvent,
    Hello,
    Frame,
  } satisfies Record<string, z.ZodType>,
  lists: { SOURCES: Source, DELIVERY_STATUSES: DeliveryStatus, FORCED_STATUSES: ForcedStatus, SUBSCRIPTION_STATUSES: SubscriptionStatus },
};
