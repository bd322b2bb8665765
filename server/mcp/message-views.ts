import type { Capture, MessageDetail, MessageSummary } from '../../client/pigeonhole-client.ts';

/** How a capture is cut for an agent: the summary fields, bodies cut to size, the resources that hold the rest. */

/** Characters of text a result carries unless the call asks for more. */
export const TEXT_LIMIT = 20_000;
/** Characters of HTML a result carries when HTML is asked for, unless it asks for more. */
export const HTML_LIMIT = 100_000;

export interface BodyOptions {
  include_html: boolean;
  max_text_chars: number;
  max_html_chars: number;
}

/** Text and HTML cut to the asked size, with the full lengths so an agent knows what it missed. */
function bodies(html: string | null, text: string | null, derived: boolean, options: BodyOptions) {
  const cut = (value: string | null, limit: number) => (value === null || value.length <= limit ? value : value.slice(0, limit));
  return {
    text: cut(text, options.max_text_chars),
    text_derived: derived,
    ...(text !== null && text.length > options.max_text_chars ? { text_truncated: true, text_length: text.length } : {}),
    html_length: html?.length ?? 0,
    ...(options.include_html
      ? { html: cut(html, options.max_html_chars), ...(html !== null && html.length > options.max_html_chars ? { html_truncated: true } : {}) }
      : {}),
  };
}

/** The fields of a summary an agent is given, in this order (a capture has more). */
const SUMMARY_FIELDS = [
  'id',
  'source',
  'team',
  'sender',
  'from',
  'recipient',
  'to',
  'cc',
  'bcc',
  'subject',
  'snippet',
  'status',
  'blocked',
  'blocked_note',
  'redirected',
  'read',
  'attachment_count',
  'created_at',
  'namespace',
] as const satisfies readonly (keyof MessageSummary)[];

export function summary(m: MessageSummary): MessageSummary {
  return Object.fromEntries(SUMMARY_FIELDS.map((key) => [key, m[key]])) as unknown as MessageSummary;
}

function resources(id: string, hasHtml: boolean) {
  return { eml: `pigeonhole://messages/${id}/raw.eml`, ...(hasHtml ? { html: `pigeonhole://messages/${id}/body.html` } : {}) };
}

export function captureResult(capture: Capture, options: BodyOptions) {
  return {
    ...summary(capture),
    ...bodies(capture.html, capture.text, capture.text_derived, options),
    links: capture.links,
    codes: capture.codes,
    resources: resources(capture.id, capture.html !== null),
  };
}

export function detailResult(m: MessageDetail, includeHeaders: boolean, options: BodyOptions) {
  return {
    ...summary(m),
    first_name: m.first_name,
    last_name: m.last_name,
    flags: m.flags,
    used_template: m.used_template,
    encrypted: m.encrypted,
    flow: m.flow,
    ...bodies(m.html, m.text, m.text_derived, options),
    links: m.links,
    codes: m.codes,
    ...(includeHeaders ? { headers: m.headers } : {}),
    attachments: m.attachments.map(({ filename, content_type, size, content_id }) => ({ filename, content_type, size, content_id })),
    resources: resources(m.id, m.html !== null),
  };
}
