import { createRequire } from 'node:module';
import type libbase64Module from 'libbase64';
import type libmimeModule from 'libmime';
import type libqpModule from 'libqp';

// Loaded with the first SMTP message, not with the server (libmime's charset tables are a tenth
// of start-up); their CommonJS builds keep the quick read synchronous.
const load = createRequire(import.meta.url);
let libs: { libmime: typeof libmimeModule; libqp: typeof libqpModule; libbase64: typeof libbase64Module } | null = null;
function mimeLibs() {
  libs ??= { libmime: load('libmime'), libqp: load('libqp'), libbase64: load('libbase64') };
  return libs;
}
import type { PartsSummary } from '../domain/messages/incoming.ts';
import { bodyTexts } from '../domain/messages/snippet.ts';

/** Messages larger than this go to mailparser: the quick read is for the everyday mail. */
const MAX_BYTES = 512 * 1024;
/** Bytes in one line, at most (mailsplit flushes longer lines in pieces). */
const MAX_LINE = 60 * 1024;
/** MIME parts in one message, at most, for the quick read. */
const MAX_PARTS = 64;
const CR = 0x0d;
const LF = 0x0a;
const TEXT_TYPES = new Set(['text/plain', 'text/html']);
const MULTIPART = new Set(['multipart/mixed', 'multipart/alternative', 'multipart/related']);
const UTF8 = new Set(['ascii', 'usascii', 'utf8']);

/**
 * What a capture keeps of an SMTP message's parts (which bodies, the snippet, the attachments'
 * names and sizes), read in one synchronous pass over the bytes, or null when the message is
 * not one this reader is sure about. It gives exactly what `summarizeParts` (mailparser) gives,
 * using the same header and transfer-encoding code mailparser uses (libmime, libqp, libbase64),
 * for the shapes everyday mail has: a text or HTML body, multipart/alternative, /mixed and
 * /related with attachments and inline images, CRLF line endings, UTF-8 or ASCII text, 7bit,
 * 8bit, quoted-printable or base64. Anything else (another charset, format=flowed, an attached
 * message, a delimiter it cannot place, a bare LF, a very long line, a large message) returns
 * null, and mailparser reads it in the worker thread as before. `test/smtp/mime-summary.test.ts`
 * checks the two agree.
 *
 * Why: mailparser streams every line through several Transform streams, which cost an SMTP
 * capture more CPU than everything else it does together; this pass lets the capture be
 * written once, complete, before the client is answered (see bench/README.md).
 */
export function quickSummary(raw: Buffer): PartsSummary | null {
  if (raw.length > MAX_BYTES || !plainLines(raw)) return null;
  const parts: Part[] = [];
  const root = readPart(raw, 0, raw.length, true, parts);
  if (root === null) return null;
  return summaryOf(root, parts);
}

interface Part {
  contentType: string;
  /** Leaves only. */
  disposition: string;
  isAttachment: boolean;
  encoding: string;
  charset: string | false;
  filename: string | false;
  contentId: string | null;
  root: boolean;
  body: Buffer;
  children: Part[];
}

/** Reads one MIME node between `start` and `end` (its headers, then its body or children). */
function readPart(raw: Buffer, start: number, end: number, root: boolean, all: Part[], beforePart = false): Part | null {
  if (all.length >= MAX_PARTS) return null;
  // The header block ends at the first empty line; a part with no header block starts with one.
  let bodyAt: number;
  let headerText: string;
  // A message that starts with an empty line has no headers at all (all of it is body, as
  // mailparser reads it): rare enough to leave to mailparser.
  if (root && raw[start] === CR && raw[start + 1] === LF) return null;
  if (!root && raw[start] === CR && raw[start + 1] === LF) {
    headerText = '';
    bodyAt = start + 2;
  } else {
    const blank = raw.indexOf('\r\n\r\n', start);
    if (blank < 0 || blank + 4 > end) return null;
    headerText = raw.toString('latin1', start, blank);
    bodyAt = blank + 4;
  }
  const headers = headerLines(headerText);
  if (headers === null) return null;
  const first = (key: string): string | null => {
    const line = headers.find((h) => h.key === key)?.line;
    if (line === undefined) return '';
    // Non-ASCII bytes in these fields are read differently by mailsplit: let it read them.
    if (!isAscii(line)) return null;
    return String(mimeLibs().libmime.decodeHeader(line).value ?? '').trim();
  };
  const typeField = first('content-type');
  const dispositionField = first('content-disposition');
  const encodingField = first('content-transfer-encoding');
  const contentIdField = first('content-id');
  if (typeField === null || dispositionField === null || encodingField === null || contentIdField === null) return null;
  // Without Content-Type mailsplit guesses from a filename; only the plain default is read here.
  if (typeField === '' && (dispositionField !== '' || !root)) return null;
  if (encodingField.includes('(') || dispositionField.includes('=?')) return null;
  const type = mimeLibs().libmime.parseHeaderValue(typeField === '' ? 'text/plain' : typeField);
  const disposition = mimeLibs().libmime.parseHeaderValue(dispositionField);
  const contentType = String(type.value ?? '')
    .toLowerCase()
    .trim();
  if (contentType === '') return null;
  const params = type.params as Record<string, string | undefined>;
  if (params.format !== undefined && params.format.toLowerCase().trim() === 'flowed') return null;
  const filenameParam = (disposition.params as Record<string, string | undefined>).filename || params.name || false;
  const part: Part = {
    contentType,
    disposition: '',
    isAttachment: false,
    encoding: encodingField.toLowerCase().trim(),
    charset: params.charset || false,
    filename: filenameParam ? decodeWords(filenameParam) : false,
    contentId: contentIdField === '' ? null : contentIdField,
    root,
    // The line break before a delimiter belongs to the delimiter, except (as mailsplit has it)
    // when that line break is the whole body and another part follows.
    body: beforePart && bodyAt === end ? raw.subarray(end, end + 2) : raw.subarray(bodyAt, end),
    children: [],
  };
  all.push(part);
  if (contentType.startsWith('multipart/')) {
    const boundary = params.boundary;
    if (!MULTIPART.has(contentType) || !boundary) return null;
    const children = splitMultipart(raw, bodyAt, end, boundary);
    if (children === null || children.length === 0) return null;
    for (const [from, to, beforePart] of children) {
      const child = readPart(raw, from, to, false, all, beforePart);
      if (child === null) return null;
      part.children.push(child);
    }
    return part;
  }
  if (contentType.startsWith('message/')) return null;
  // mailsplit splits any part with a boundary parameter, whatever its type says.
  if (params.boundary !== undefined) return null;
  // As mailparser's createNode decides what is a body and what is an attachment.
  let kind = String(disposition.value ?? '')
    .toLowerCase()
    .trim();
  if (kind !== '' && kind !== 'attachment' && kind !== 'inline') kind = 'attachment';
  part.disposition = kind === '' ? (TEXT_TYPES.has(contentType) ? 'inline' : 'attachment') : kind;
  part.isAttachment = !TEXT_TYPES.has(contentType) || part.disposition !== 'inline';
  if (!part.isAttachment && part.charset !== false && !UTF8.has(part.charset.toLowerCase().replace(/[^a-z0-9]+/g, ''))) return null;
  return part;
}

/**
 * The byte ranges of a multipart body's parts, each with whether another part follows it:
 * between a `--boundary` line and the next, the
 * line break before a delimiter belonging to the delimiter; the preamble and the epilogue
 * after `--boundary--` are not parts. Any line that starts with the delimiter but is not
 * exactly one, or a missing closing delimiter, gives null.
 */
function splitMultipart(raw: Buffer, start: number, end: number, boundary: string): [number, number, boolean][] | null {
  const delimiter = Buffer.from(`--${boundary}`, 'latin1');
  const ranges: [number, number, boolean][] = [];
  let partStart = -1;
  let at = start;
  while (at < end) {
    // A delimiter starts a line: at the start of the body, or after a CRLF.
    const found = raw.indexOf(delimiter, at);
    if (found < 0 || found + delimiter.length > end) return null;
    at = found + delimiter.length;
    if (found !== start && !(raw[found - 1] === LF && raw[found - 2] === CR)) continue;
    const lineEnd = raw.indexOf('\r\n', at);
    const rest = raw.toString('latin1', at, lineEnd < 0 || lineEnd > end ? end : lineEnd);
    if (rest !== '' && rest !== '--') return null;
    if (partStart >= 0) ranges.push([partStart, found === start ? found : found - 2, rest === '']);
    if (rest === '--') return ranges;
    if (lineEnd < 0 || lineEnd >= end) return null;
    partStart = lineEnd + 2;
    at = partStart;
  }
  return null;
}

/** The header block's fields, unfolded as mailsplit's Headers does; null for a form it treats apart. */
function headerLines(text: string): { key: string; line: string }[] | null {
  if (text === '') return [];
  const lines = text.split('\r\n');
  if (/^(From|POST) /i.test(lines[0]!) || /^[ \t]/.test(lines[0]!)) return null;
  const out: { key: string; line: string }[] = [];
  for (const line of lines) {
    if (line[0] === ' ' || line[0] === '\t') out[out.length - 1]!.line += `\r\n${line}`;
    else out.push({ key: line.includes(':') ? line.slice(0, line.indexOf(':')).toLowerCase().trim() : '', line });
  }
  return out;
}

/** As mailparser's getTextContent with skipHtmlToText and skipTextToHtml, and summarizeParts after it. */
function summaryOf(root: Part, all: Part[]): PartsSummary | null {
  const leaves = all.filter((p) => p.children.length === 0 && !p.contentType.startsWith('multipart/'));
  const bodies = leaves.filter((p) => !p.isAttachment);
  const hasText = bodies.some((p) => p.contentType === 'text/plain');
  const hasHtml = bodies.some((p) => p.contentType === 'text/html');
  const texts: string[] = [];
  // The HTML bodies' bytes: whether there are any is all the summary needs, unless the snippet
  // has no text to come from.
  const htmls: Buffer[] = [];
  const visit = (alternative: boolean, node: Part): boolean => {
    if (!node.isAttachment && node.children.length === 0 && !node.contentType.startsWith('multipart/')) {
      // A body that decodes to no bytes is an empty string to mailparser, which skips it.
      const content = decode(node);
      if (content.length > 0) {
        if (node.contentType === 'text/plain') {
          // mailparser would add this text to the HTML too, converted: left to it.
          if (!alternative && hasHtml) return false;
          texts.push(lines(content));
        } else {
          if ((!alternative && hasText) || (node.root && !hasText)) texts.push('');
          htmls.push(content);
        }
      }
    }
    const inAlternative = alternative || node.contentType === 'multipart/alternative';
    return node.children.every((child) => visit(inAlternative, child));
  };
  if (!visit(false, root)) return null;
  const hasHtmlBody = htmls.length > 0;
  const joined = texts.length > 0 ? texts.join('\n') : undefined;
  const text = joined === undefined || (joined === '' && hasHtmlBody) ? null : joined.replace(/\r?\n$/, '');
  const readable =
    text !== null && text.trim() !== ''
      ? bodyTexts(text, null)
      : bodyTexts(
          text,
          hasHtmlBody
            ? htmls
                .map(lines)
                .join('<br/>\n')
                .replace(/\r?\n$/, '')
            : null,
        );
  const attachments = leaves.filter((p) => p.isAttachment);
  return {
    html: hasHtmlBody,
    text: text !== null,
    ...readable,
    attachments: attachments.map((a, index) => {
      const contentType =
        a.contentType === 'application/octet-stream' && a.filename
          ? mimeLibs().libmime.detectMimeType(a.filename) || 'application/octet-stream'
          : a.contentType;
      return {
        filename: a.filename || `attachment-${index + 1}`,
        contentType,
        size: decode(a).length,
        ...(a.contentId ? { contentId: a.contentId.replace(/^<|>$/g, '') } : {}),
      };
    }),
  };
}

/** A leaf's content with its transfer encoding undone (anything but QP and base64 is as sent). */
function decode(part: Part): Buffer {
  if (part.encoding === 'base64') return mimeLibs().libbase64.decode(part.body.toString('latin1').replace(/[^a-zA-Z0-9+/=]/g, ''));
  if (part.encoding === 'quoted-printable') return mimeLibs().libqp.decode(part.body.toString('latin1'));
  return part.body;
}

/** A body as mailparser gives it: UTF-8, with LF line endings. */
function lines(content: Buffer): string {
  return content.toString().replace(/\r?\n/g, '\n');
}

function decodeWords(value: string): string {
  try {
    return mimeLibs().libmime.decodeWords(value);
  } catch {
    return value;
  }
}

/** Every line ends in CRLF, and none is so long that mailsplit would cut it up (64 KB). */
function plainLines(raw: Buffer): boolean {
  let previous = -1;
  for (let at = raw.indexOf(LF); at >= 0; previous = at, at = raw.indexOf(LF, at + 1)) {
    if (at === 0 || raw[at - 1] !== CR || at - previous > MAX_LINE) return false;
  }
  return raw.length - previous <= MAX_LINE;
}

function isAscii(text: string): boolean {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the test is for bytes outside ASCII
  return /^[\x00-\x7f]*$/.test(text);
}
