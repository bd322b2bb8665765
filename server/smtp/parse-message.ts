import type { AddressObject, EmailAddress } from 'mailparser';
import { lazy } from '../lazy.ts';
import { parseHeaders } from '../domain/headers.ts';
import type { IncomingAttachment } from '../domain/messages.ts';

/** What a captured SMTP message contributes to a capture, whoever sent it. */
export interface ParsedMessage {
  from: string;
  subject: string;
  /** The To and Cc headers' addresses. */
  to: string[];
  cc: string[];
  html: string | null;
  text: string | null;
  attachments: IncomingAttachment[];
}

/**
 * Parses a message with mailparser. `cid:` links are kept (the preview rewrites them to the
 * attachment URLs), and no text or HTML part is invented when the sender gave none, as for
 * API sends. A message mailparser cannot make sense of is still captured: its header fields as
 * far as they read, the rest as the text body.
 */
export async function parseMessage(raw: Buffer): Promise<ParsedMessage> {
  const simpleParser = await parser();
  try {
    const parsed = await simpleParser(raw, { keepCidLinks: true, skipHtmlToText: true, skipTextToHtml: true, skipImageLinks: true });
    // The line break that ends a single-part body belongs to the transport, not the text.
    const html = typeof parsed.html === 'string' ? parsed.html.replace(/\r?\n$/, '') : null;
    // mailparser reports an empty text for an HTML-only message: there was no text part.
    const text = parsed.text === undefined || (parsed.text === '' && html !== null) ? null : parsed.text.replace(/\r?\n$/, '');
    const from = parsed.from?.value[0];
    return {
      from: from?.address ? (from.name ? `${from.name} <${from.address}>` : from.address) : (parsed.from?.text ?? ''),
      subject: parsed.subject ?? '',
      to: addresses(parsed.to),
      cc: addresses(parsed.cc),
      html,
      text,
      attachments: parsed.attachments.map((a, index) => ({
        filename: a.filename ?? `attachment-${index + 1}`,
        contentType: a.contentType || 'application/octet-stream',
        content: a.content,
        ...(a.contentId ? { contentId: a.contentId.replace(/^<|>$/g, '') } : {}),
      })),
    };
  } catch {
    return fallback(raw);
  }
}

/** mailparser loads with the first SMTP message: an API-only session never needs it. */
const parser = lazy(async () => (await import('mailparser')).simpleParser);

function fallback(raw: Buffer): ParsedMessage {
  const text = raw.toString('latin1');
  const fields = parseHeaders(text);
  const field = (name: string) => fields.find((f) => f.name.toLowerCase() === name)?.value ?? '';
  const split = (value: string) => value.split(',').map((a) => /<([^>]+)>/.exec(a)?.[1] ?? a.trim()).filter((a) => a.includes('@'));
  const bodyAt = text.search(/\r?\n\r?\n/);
  return {
    from: field('from'),
    subject: field('subject'),
    to: split(field('to')),
    cc: split(field('cc')),
    html: null,
    text: bodyAt < 0 ? '' : raw.subarray(bodyAt).toString('utf8').trimStart(),
    attachments: [],
  };
}

function addresses(header: AddressObject | AddressObject[] | undefined): string[] {
  const out: string[] = [];
  const walk = (list: EmailAddress[]) => {
    for (const entry of list) {
      if (entry.group) walk(entry.group);
      else if (entry.address) out.push(entry.address);
    }
  };
  for (const object of header === undefined ? [] : Array.isArray(header) ? header : [header]) walk(object.value);
  return out;
}
