import { rm, writeFile } from 'node:fs/promises';
import { Stream } from 'node:stream';
import type { ExtendedFormidableOptions } from 'koa-body';

export type OnPart = NonNullable<ExtendedFormidableOptions['onPart']>;
type Part = Parameters<OnPart>[0] & { headers?: Record<string, string> };

/** A request's file parts went past the cap: refused while it is parsed (nothing more is written). */
export class TooManyFiles extends Error {
  constructor(readonly cap: number) {
    super(`more than ${cap} files`);
  }
}

/** What one multipart request's parts may be, and where a refusal goes. */
export interface PartRules {
  /** File parts kept; one more refuses the request. 0: file parts are read past and never written. */
  maxFiles: number;
  /** Fields and the file parts read past, together, in bytes (the body limit). */
  maxFieldBytes: number;
  /** Ends the parse with this error (formidable stops reading parts). */
  fail(error: Error): void;
  /** The request's own folder under the upload folder, its files' names start with (uploadFolderOf). */
  folder?: string;
}

const FOLDER = Symbol('upload folder');

/** The folder djangoParts gave a file part (its request's), for formidable's `filename` option; '' without one. */
export function uploadFolderOf(part: unknown): string {
  return (part as { [FOLDER]?: string } | null)?.[FOLDER] ?? '';
}

/**
 * formidable's `onPart` with the real service's rule (Django's multipart parser, docs/api-contract.md
 * §1): a part whose Content-Disposition has a non-empty `filename` (or `filename*`) is a file,
 * every other part is a field, whatever its Content-Type (`curl -F 'body=<page.html'` sends one
 * with `text/html`); a field's text is decoded by the charset its Content-Type names (UTF-8
 * without one). formidable alone makes any part with a Content-Type a file.
 */
export function djangoParts(rules: PartRules): OnPart {
  let files = 0;
  let fieldBytes = 0;
  let failed = false;
  const fail = (error: Error) => {
    failed = true;
    rules.fail(error);
  };
  const counted = (bytes: number) => (fieldBytes += bytes) <= rules.maxFieldBytes;
  // Once failed, the parts still in the chunk being parsed are passed over, not answered again.
  return (part, handle) => {
    if (failed) return;
    const filename = fileName(part as Part);
    if (filename === null) {
      handle(asField(part as Part, counted, fail));
      return;
    }
    // Read past, but counted: a body without a Content-Length is held to the limit by this.
    if (rules.maxFiles === 0) {
      part.on('data', (chunk: Buffer) => {
        if (!failed && !counted(chunk.length)) fail(tooLarge());
      });
      return;
    }
    if (++files > rules.maxFiles) return fail(new TooManyFiles(rules.maxFiles));
    part.originalFilename = filename;
    if (rules.folder !== undefined) (part as Part & { [FOLDER]?: string })[FOLDER] = rules.folder;
    // Django keeps a file part without a Content-Type as a file; formidable needs one to say so.
    part.mimetype ||= 'application/octet-stream';
    handle(part);
  };
}

/** The part's file name: `filename*` (RFC 5987) first, then `filename`; null for a field (none, or empty). */
function fileName(part: Part): string | null {
  const disposition = part.headers?.['content-disposition'] ?? '';
  const extended = /;\s*filename\*\s*=\s*([^;]*)/i.exec(disposition);
  const decoded = extended ? rfc5987(extended[1]!.trim()) : null;
  if (decoded) return decoded;
  return part.originalFilename ? part.originalFilename : null;
}

/** `UTF-8''n%C3%A4me.txt` → `näme.txt`; null when it is not that shape. */
function rfc5987(value: string): string | null {
  const quote = value.indexOf("'");
  const second = quote < 0 ? -1 : value.indexOf("'", quote + 1);
  if (second < 0) return null;
  const bytes: number[] = [];
  const text = value.slice(second + 1);
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '%' && /^[0-9a-f]{2}$/i.test(text.slice(i + 1, i + 3))) {
      bytes.push(Number.parseInt(text.slice(i + 1, i + 3), 16));
      i += 2;
    } else bytes.push(text.charCodeAt(i) & 0xff);
  }
  return decode(Buffer.from(bytes), value.slice(0, quote)) || null;
}

/**
 * The part as formidable reads a field (no type, UTF-8): its bytes gathered, decoded by the
 * charset its Content-Type names, and handed on as UTF-8 once the part ends.
 */
function asField(part: Part, counted: (bytes: number) => boolean, fail: (error: Error) => void): Part {
  const field = Object.assign(new Stream(), {
    name: part.name,
    originalFilename: null,
    mimetype: null,
    headers: part.headers,
    transferEncoding: 'utf-8',
  }) as Part;
  const chunks: Buffer[] = [];
  let over = false;
  part.on('data', (chunk: Buffer) => {
    if (over) return;
    if (!counted(chunk.length)) {
      over = true;
      return fail(tooLarge());
    }
    chunks.push(chunk);
  });
  part.on('end', () => {
    if (over) return;
    field.emit('data', Buffer.from(decode(Buffer.concat(chunks), charsetOf(part.mimetype))));
    field.emit('end');
  });
  return field;
}

/** formidable's own refusal shape for a size limit: the body parser answers it with its 413. */
const tooLarge = () => Object.assign(new Error('body too large'), { httpCode: 413 });

function charsetOf(contentType: string | null): string {
  const match = /;\s*charset\s*=\s*"?([^";\s]*)/i.exec(contentType ?? '');
  return match?.[1] || 'utf-8';
}

/** Bytes as text in the named charset; an unknown charset reads as UTF-8 (bad bytes become U+FFFD). */
function decode(bytes: Buffer, charset: string): string {
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(charset);
  } catch {
    decoder = new TextDecoder('utf-8');
  }
  return decoder.decode(bytes);
}

/** Runs `work` over the items with at most `width` at once (temporary files: never a file handle per upload at once). */
async function eachLimited<T>(items: readonly T[], width: number, work: (item: T) => Promise<unknown>): Promise<void> {
  let next = 0;
  let failure: unknown = null;
  const lane = async () => {
    while (next < items.length && failure === null) {
      const item = items[next++]!;
      await work(item).catch((error: unknown) => {
        failure ??= error;
      });
    }
  };
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, lane));
  if (failure !== null) throw failure;
}

/** Temporary-file work at once, at most (a request's files are touched and removed this many at a time). */
const FILE_WORK = 8;

/** formidable creates no file for an empty upload; an empty attachment is still one. */
export function touchFiles(paths: readonly string[]): Promise<void> {
  return eachLimited(paths, FILE_WORK, (file) => writeFile(file, '', { flag: 'a' }));
}

export function removeFiles(paths: readonly string[]): Promise<void> {
  return eachLimited(paths, FILE_WORK, (file) => rm(file, { force: true }).catch(() => undefined));
}
