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
const UnwrappedBody = z
  .enum(['kept', 'not_wrapped', 'not_kept'])
  .describe(
    'Whether the HTML body as the sender gave it, before the account template wrapped it, can be had. kept: stored beside the wrapped HTML; not_wrapped: no template wrapped it (the HTML is the body as sent); not_kept: wrapped by a template before Pigeonhole kept the body as sent (only the wrapped HTML exists).',
  );
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
const RewrappedCapture = z
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
const TemplateFileInfo = z
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
    impact: z
      .enum(['breaks', 'ignored'])
      .describe(
        'breaks: where unsupported, the email looks or works differently (counted in the scores); ignored: a progressive enhancement (dark-mode, reduced-motion or hover queries, color-scheme, :hover) or used only inside one, which a client without it simply does not apply (not counted).',
      ),
    url: z.string().meta({ format: 'uri' }).describe('The caniemail.com page.'),
    count: int().describe('Occurrences in the HTML.'),
    enhancement_count: int().describe(
      'Of those, the ones inside an enhancement (a dark-mode, reduced-motion or hover query, a :hover rule): not counted in the scores.',
    ),
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
      "0–100, Mailpit's worst case: 100 minus the worst partial and the worst unsupported share, each weighted by how often its feature occurs; uses whose impact is `ignored` do not count.",
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
const TemplateFindings = z
  .object({
    findings: z.array(
      z.object({
        rule: z
          .enum(['nested-document', 'merge-tag'])
          .describe('nested-document: a full document inside the account template (or two in one); merge-tag: a merge tag left unfilled.'),
        severity: z.enum(['error', 'warning']),
        message: z.string(),
        fix: z.string().describe('What to change.'),
        part: z.enum(['html', 'text']),
        line: int().nullable(),
      }),
    ),
  })
  .meta({ id: 'TemplateFindings' });
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
    template: TemplateFindings.describe('A full document inside the account template, unfilled merge tags ({{…}}, *|…|*, %…%).'),
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

/** The client views of GET /api/messages/{id}/render (docs/checks.md, "Client views"). */
export const ClientViewId = z
  .enum(['gmail-web', 'gmail-app', 'outlook-windows', 'outlook-com', 'apple-mail', 'yahoo', 'images-off'])
  .meta({ id: 'ClientViewId' });
export const RenderMode = z.enum(['light', 'dark', 'inverted']).meta({ id: 'RenderMode' });
const ViewRemoval = z
  .object({
    rule: z
      .enum(['caniemail', 'caniemail-note', 'gmail-clip', 'images-off'])
      .describe("Why it went: the client's latest caniemail test says not supported, a note of a partial support, Gmail's clip, or images off."),
    what: z.string().describe('What went, as written in the email (its first occurrence).'),
    reason: z.string().describe('The sentence that says why, naming the client and the test or note.'),
    feature: z.string().nullable().describe('The caniemail feature slug (the check warning of the same `feature`); null for the clip and images off.'),
    finding: z.string().nullable().describe('The check finding it answers to: compatibility/<slug>, size/gmail_clipped or accessibility/img-alt.'),
    url: z.string().nullable().describe("caniemail's page for the feature."),
    count: int(),
    lines: z.array(int()).describe('Lines of the HTML as captured (the first 200).'),
  })
  .meta({ id: 'ViewRemoval' });
export const ClientView = z
  .object({
    client: ClientViewId,
    name: z.string(),
    fidelity: z
      .enum(['high', 'medium', 'low'])
      .describe('How close the approximation comes: high (few differences), medium, low (the client lays mail out another way).'),
    approximation: z.literal(true).describe('A view is an approximation from the data, never a screenshot of the client.'),
    limits: z.string().describe('What the view does not simulate.'),
    mode: RenderMode,
    dark: z
      .enum(['styles', 'invert', 'light'])
      .nullable()
      .describe("How dark was shown: the email's own dark styles, an inversion, or light (the client does neither); null in light mode."),
    html: z.string().describe('The transformed HTML, cid: references pointing at the attachments; show it under the preview policy.'),
    removed: z.array(ViewRemoval),
  })
  .meta({ id: 'ClientView' });

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
    frame(
      'template_file.changed',
      z.object({ name: z.string().describe('The file in the --templates folder.'), removed: z.boolean().describe('It was deleted or renamed away.') }),
    ),
    frame('template.changed', z.object({ sender: z.string(), version: int().describe("The version now in use (0: the configuration file's).") })),
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
    UnwrappedBody,
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
    TemplateVersion,
    TemplateVersions,
    RewrappedCapture,
    Rewrap,
    TemplateFileInfo,
    TemplateFileList,
    TemplateFile,
    Released,
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
    TemplateFindings,
    SpamReport,
    CheckReport,
    LinkCheckResult: LinkResult,
    LinkCheck,
    LinkEvent,
    ClientViewId,
    RenderMode,
    ViewRemoval,
    ClientView,
    Hello,
    Frame,
  } satisfies Record<string, z.ZodType>,
  lists: {
    CLIENT_VIEW_IDS: ClientViewId,
    RENDER_MODES: RenderMode,
    SOURCES: Source,
    DELIVERY_STATUSES: DeliveryStatus,
    FORCED_STATUSES: ForcedStatus,
    SUBSCRIPTION_STATUSES: SubscriptionStatus,
  },
};
