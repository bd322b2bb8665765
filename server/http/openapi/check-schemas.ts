import { z } from 'zod';
import { CheckPlatform, ClientSupport, int } from './wire-basics.ts';

/** The wire types of the checks and the client views (docs/checks.md). Part of the wire's schemas (schemas.ts). */

const num = () => z.number();
export const EmailClient = z
  .object({
    id: z.string().describe('family.platform as caniemail names them, e.g. gmail.android, outlook.windows.'),
    name: z.string(),
    family: z.string(),
    platform: CheckPlatform,
    market_share: num().describe('Percent of opens used by market_score (0: no figure).'),
  })
  .meta({ id: 'EmailClient' });
export const CompatibilityWarning = z
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
export const Compatibility = z
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
export const SizeReport = z
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
export const AccessibilityIssue = z
  .object({
    rule: z.string().describe('img-alt, html-lang, layout-table, link-text, heading-order, text-alternative, small-text, or an html-validate rule id.'),
    severity: z.enum(['error', 'warning']),
    message: z.string(),
    line: int().nullable(),
    source: z.enum(['pigeonhole', 'html-validate']),
    url: z.string().meta({ format: 'uri' }).optional(),
  })
  .meta({ id: 'AccessibilityIssue' });
export const DarkMode = z
  .object({
    color_scheme: z.string().nullable().describe('The content of <meta name="color-scheme">.'),
    has_dark_styles: z.boolean().describe('@media (prefers-color-scheme: dark) styles exist.'),
    findings: z.array(z.object({ rule: z.enum(['color-scheme-meta', 'no-dark-styles', 'light-background']), message: z.string(), line: int().nullable() })),
  })
  .meta({ id: 'DarkMode' });
export const HeadersReport = z
  .object({
    bulk: z.boolean().describe('Precedence bulk/list, List-Id or List-Unsubscribe.'),
    findings: z.array(z.object({ header: z.string(), status: z.enum(['ok', 'warning', 'error']), value: z.string().nullable(), message: z.string() })),
  })
  .meta({ id: 'HeadersReport' });
export const TemplateFindings = z
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
export const SpamReport = z
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
export const LinkResult = z
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
export const LinkEvent = z.union([
  z.object({ type: z.literal('start'), total: int(), skipped: linkCounts.skipped }),
  z.object({ type: z.literal('link'), ...LinkResult.shape }),
  z.object({ type: z.literal('done'), ...linkCounts }),
]);

/** The client views of GET /api/messages/{id}/render (docs/checks.md, "Client views"). */
export const ClientViewId = z
  .enum(['gmail-web', 'gmail-app', 'outlook-windows', 'outlook-com', 'apple-mail', 'yahoo', 'images-off'])
  .meta({ id: 'ClientViewId' });
export const RenderMode = z.enum(['light', 'dark', 'inverted']).meta({ id: 'RenderMode' });
export const ViewRemoval = z
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
