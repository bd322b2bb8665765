import type { AddressObject, EmailAddress } from 'mailparser';
import addressparser, { type Address } from 'nodemailer/lib/addressparser';
import { lazy } from '../domain/lazy.ts';
import { parseHeaders } from '../domain/mail/headers.ts';
import type { IncomingAttachment, MessageParts, PartsSummary } from '../domain/messages/incoming.ts';
import { bodyTexts } from '../domain/messages/snippet.ts';

/** A message's header fields that a capture needs the moment it arrives (who, to whom, what). */
export interface MessageHeaders {
  from: string;
  subject: string;
  /** The To and Cc headers' addresses. */
  to: string[];
  cc: string[];
}

/** The header fields a capture needs before it is stored. */
const CAPTURE_FIELDS: ReadonlySet<string> = new Set(['from', 'subject', 'to', 'cc']);

/** Headers are read from at most this much of the start of a message. */
const MAX_HEADER_BYTES = 256 * 1024;

/**
 * The header fields of a message, read without parsing its MIME body: enough to apply the
 * sender's rules (blocks, Development Mode, recipients) and store the capture before it is
 * answered. The parts are extracted by `parseParts` right after (Messages does that).
 */
export function readMessageHeaders(raw: Buffer): MessageHeaders {
  // Only the header block becomes a string, not the body after it.
  const head = raw.subarray(0, MAX_HEADER_BYTES);
  const end = head.indexOf('\n\r\n') >= 0 ? head.indexOf('\n\r\n') + 1 : head.indexOf('\n\n') >= 0 ? head.indexOf('\n\n') + 1 : head.length;
  const fields = parseHeaders(head.subarray(0, end).toString('latin1'), CAPTURE_FIELDS);
  const field = (name: string) => fields.find((f) => f.name.toLowerCase() === name)?.value ?? '';
  const list = (name: string) => fields.filter((f) => f.name.toLowerCase() === name).flatMap((f) => mailboxes(addressparser(f.value)));
  const from = addressparser(field('from'))[0];
  const sender = from && !from.group && from.address ? (from.name ? `${from.name} <${from.address}>` : from.address) : field('from');
  return { from: sender, subject: field('subject'), to: list('to'), cc: list('cc') };
}

function mailboxes(list: Address[]): string[] {
  return list.flatMap((entry) => (entry.group ? mailboxes(entry.group) : entry.address ? [entry.address] : []));
}

/** The bodies and attachments of a message, with mailparser (the part that takes time). */
export async function parseParts(raw: Buffer): Promise<MessageParts> {
  const { html, text, attachments } = await parseMessage(raw);
  return { html, text, attachments };
}

/** What a capture keeps of its parts: which bodies it has, the snippet, the attachments' names and sizes. */
export async function summarizeParts(raw: Buffer): Promise<PartsSummary> {
  const { html, text, attachments } = await parseMessage(raw);
  return {
    html: html !== null,
    text: text !== null,
    ...bodyTexts(text, html),
    attachments: attachments.map((a) => ({
      filename: a.filename,
      contentType: a.contentType,
      size: a.content?.length ?? 0,
      ...(a.contentId ? { contentId: a.contentId } : {}),
    })),
  };
}

/** What a captured SMTP message contributes to a capture, whoever sent it. */
interface ParsedMessage {
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
async function parseMessage(raw: Buffer): Promise<ParsedMessage> {
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
  const split = (value: string) =>
    value
      .split(',')
      .map((a) => /<([^>]+)>/.exec(a)?.[1] ?? a.trim())
      .filter((a) => a.includes('@'));
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
