import { array, bool, detail, int, jsonBody, nullable, object, pathParam, query, ref, response, str, type Json, type Paths } from './helpers.ts';

/** The designers' checks: a capture's, its links', and a draft's. Detail in docs/checks.md. */

const tags = ['checks'];
const num = (description?: string): Json => ({ type: 'number', ...(description ? { description } : {}) });
const support = str(undefined, { enum: ['yes', 'partial', 'no'] });
const platform = query('platform', 'Comma-separated platforms whose clients are considered: desktop, web, mobile (default all), as Mailpit filters.');
const badPlatform = detail('A bad platform.', 'platform must be a comma-separated list of desktop, web, mobile.');

export const checkSchemas: Record<string, Json> = {
  EmailClient: object({
    id: str('family.platform as caniemail names them, e.g. gmail.android, outlook.windows.'),
    name: str(),
    family: str(),
    platform: str(undefined, { enum: ['desktop', 'web', 'mobile'] }),
    market_share: num('Percent of opens used by market_score (0: no figure).'),
  }),
  CompatibilityWarning: object({
    feature: str('caniemail slug, e.g. css-display-flex.'),
    title: str(),
    category: str(undefined, { enum: ['html', 'css', 'image', 'others'] }),
    severity: str('error: a client considered has no support; warning: partial support only.', { enum: ['error', 'warning'] }),
    url: str('The caniemail.com page.', { format: 'uri' }),
    count: int('Occurrences in the HTML.'),
    lines: array(int(), 'Lines of the HTML where it occurs (the first 200).'),
    support: { type: 'object', additionalProperties: support, description: 'Each client considered (by id), from its most recent test.' },
    notes: { type: 'object', additionalProperties: str(), description: "caniemail's note for a client, where its support has one." },
    unsupported_pct: num('Percent of tested client versions with no support (Mailpit counts every version).'),
    partial_pct: num(),
    market_unsupported_pct: num('Percent of opens, by market share, in clients with no support.'),
    market_partial_pct: num(),
  }),
  Compatibility: object({
    score: num("0–100, Mailpit's worst case: 100 minus the worst partial and the worst unsupported share, each weighted by how often its feature occurs."),
    market_score: num('0–100, the same formula with clients weighted by their share of opens.'),
    data: object({ source: str(), version: str(), license: str(), date: str('The date of the caniemail data.') }),
    platforms: array(str(undefined, { enum: ['desktop', 'web', 'mobile'] })),
    nodes: int('Elements counted, the denominator of the frequencies.'),
    warnings: array(ref('CompatibilityWarning'), 'Costliest first.'),
    clients: array(ref('EmailClient')),
  }),
  SizeReport: object({
    html_bytes: int(),
    text_bytes: int(),
    message_bytes: int('The whole .eml (a draft: its parts).'),
    gmail_clip_bytes: int('102 KB: Gmail clips HTML past this.'),
    gmail_clipped: bool(),
    attachments: object({
      count: int(),
      bytes: int(),
      encoded_bytes: int('As base64 in the message.'),
      limits: array(object({ provider: str(), limit_bytes: int(), over: bool() })),
    }),
  }),
  AccessibilityIssue: object(
    {
      rule: str('img-alt, html-lang, layout-table, link-text, heading-order, text-alternative, small-text, or an html-validate rule id.'),
      severity: str(undefined, { enum: ['error', 'warning'] }),
      message: str(),
      line: nullable(int()),
      source: str(undefined, { enum: ['pigeonhole', 'html-validate'] }),
      url: str(undefined, { format: 'uri' }),
    },
    ['url'],
  ),
  DarkMode: object({
    color_scheme: nullable(str('The content of <meta name="color-scheme">.')),
    has_dark_styles: bool('@media (prefers-color-scheme: dark) styles exist.'),
    findings: array(object({ rule: str(undefined, { enum: ['color-scheme-meta', 'no-dark-styles', 'light-background'] }), message: str(), line: nullable(int()) })),
  }),
  HeadersReport: object({
    bulk: bool('Precedence bulk/list, List-Id or List-Unsubscribe.'),
    findings: array(object({ header: str(), status: str(undefined, { enum: ['ok', 'warning', 'error'] }), value: nullable(str()), message: str() })),
  }),
  SpamReport: object({
    score: num(),
    threshold: num('spamd required_score.'),
    is_spam: bool(),
    rules: array(object({ name: str(), score: num(), description: str() })),
    spamd: str('The spamd asked (HOST:PORT).'),
  }),
  CheckReport: object({
    html: nullable(ref('Compatibility')),
    size: ref('SizeReport'),
    accessibility: object({ issues: array(ref('AccessibilityIssue')) }),
    dark_mode: nullable(ref('DarkMode')),
    headers: nullable(ref('HeadersReport')),
    spam: nullable(ref('SpamReport')),
    spam_note: nullable(str('Why spam is null: how to turn it on, or what went wrong with spamd.')),
  }),
  LinkResult: object({
    url: str(),
    kind: str(undefined, { enum: ['link', 'image'] }),
    lines: array(int()),
    status: nullable(int('The final answer; null without one.')),
    ok: bool('Answered below 400 after redirects.'),
    final_url: str(),
    redirects: int(),
    method: str('GET when HEAD was refused (405, 501).', { enum: ['HEAD', 'GET'] }),
    time_ms: int(),
    error: nullable(str()),
  }),
};

export const checkPaths: Paths = {
  '/api/messages/{id}/check': {
    get: {
      summary: 'Check a capture',
      description:
        'Email-client compatibility (caniemail data, two scores), size and Gmail clipping, accessibility, dark mode, headers and, with --spamassassin, the SpamAssassin score. Computed from the stored message on the first request and cached until the message is deleted.',
      tags,
      parameters: [pathParam('id', 'Message (capture) id.'), platform],
      responses: {
        200: response('The check.', { allOf: [object({ id: str() }), ref('CheckReport')] }),
        400: badPlatform,
        404: detail('No such message.', 'Not found.'),
      },
    },
  },
  '/api/messages/{id}/check/links': {
    post: {
      summary: 'Check the links and images of a capture',
      description:
        'Every absolute http(s) link and image (localhost too), HEAD then GET when HEAD is refused, up to 5 redirects, 5 at a time, a timeout per link; other schemes are never requested. The only request in Pigeonhole that reaches out, and only when asked. With `Accept: application/x-ndjson` the results stream as JSON lines: {"type":"start",total,skipped}, one {"type":"link",...} per link as it is checked, {"type":"done",total,broken,skipped}.',
      tags,
      parameters: [pathParam('id', 'Message (capture) id.')],
      requestBody: jsonBody(object({ timeout_ms: int('Per link, 100–60000, default 10000.') }, ['timeout_ms']), false),
      responses: {
        200: {
          description: 'Every link checked.',
          content: {
            'application/json': { schema: object({ total: int(), broken: int(), skipped: int('URLs of other schemes, or relative, not checked.'), links: array(ref('LinkResult')) }) },
            'application/x-ndjson': { schema: str('One JSON object per line.') },
          },
        },
        400: detail('A bad timeout.', 'timeout_ms must be a whole number from 100 to 60000.'),
        404: detail('No such message.', 'Not found.'),
      },
    },
  },
  '/api/check': {
    post: {
      summary: 'Check a draft',
      description: "The same compatibility, size, accessibility and dark-mode checks on an HTML body (the Templates page's live check), wrapped in a sender's account template when `sender` is given. No headers or spam check.",
      tags,
      requestBody: jsonBody(object({ html: str(), text: nullable(str('The plain-text part, if any.')), sender: str('Sender id: wrap in its account template.'), platform: str('As the query parameter.') }, ['text', 'sender', 'platform'])),
      responses: {
        200: response('The check.', ref('CheckReport')),
        400: detail('A bad body.', 'html must be a string.'),
      },
    },
  },
};
