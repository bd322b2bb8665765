import { constants } from 'node:fs';
import { access, mkdir, rm } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import path from 'node:path';
import type { Context, Next } from 'koa';
import type { HttpMethodEnum, KoaBodyMiddlewareOptions } from 'koa-body';
import { storageError, type StorageError } from '../domain/errors.ts';
import { detail, HttpError } from './errors.ts';
import { jsonShapeProblem } from './json-shape.ts';
import { bodyTooLarge, jsonParseError, notADictionary, unsupportedMediaType } from '../service-texts.ts';
import { djangoParts, type OnPart, removeFiles, TooManyFiles, touchFiles, uploadFolderOf } from './multipart.ts';

export interface UploadedFile {
  field: string;
  filename: string;
  contentType: string;
  size: number;
  /** A temporary file: move it somewhere or it is deleted when the request ends. */
  path: string;
}

/** A parsed request body. `form` is true for form and multipart bodies, whose values are strings. */
export interface ParsedBody {
  data: Record<string, unknown>;
  form: boolean;
  files: UploadedFile[];
}

export interface BodyOptions {
  limit: number;
  uploadDir: string;
  /**
   * File parts a multipart body may carry (`max`); one more is refused while the body is
   * parsed, with `tooMany(max)`. null: file parts are read past and never written (the sandbox API).
   */
  files: { max: number; tooMany: (cap: number) => HttpError } | null;
}

declare module 'koa' {
  interface DefaultState {
    body?: ParsedBody;
  }
}

/**
 * Parses JSON, form-encoded and multipart bodies into ctx.state.body, with the request body
 * errors of docs/api-contract.md §1: 400 for malformed JSON, a JSON body nested or wide past
 * the limits of json-shape.ts (checked before it is parsed) or one that is not an object, 415
 * for other content types, 413 over the size limit. A request without a body (or without a
 * content type, as the real service's framework does) parses as an empty object. Multipart
 * parts follow the real service's rule (multipart.ts); more file parts than `maxFiles` stop the
 * parse at the first one too many.
 */
export function bodyParser(options: BodyOptions) {
  // Upload names carry their order of arrival, so attachments keep the order they were sent
  // in (formidable reports files in the order they finish).
  let uploads = 0;
  /** Multipart requests with files: each writes them in a folder of its own. */
  let requests = 0;
  const tooLarge = () => detail(413, bodyTooLarge(options.limit));
  // koa-body (with formidable) loads with the first form or upload, not with the server: JSON,
  // which nearly every request sends, is read here, and loading it was a tenth of start-up.
  const formOptions: Partial<KoaBodyMiddlewareOptions> = {
    json: false,
    text: false,
    urlencoded: true,
    multipart: true,
    formLimit: options.limit,
    parsedMethods: ['POST', 'PUT', 'PATCH', 'DELETE', 'GET'] as HttpMethodEnum[],
    formidable: {
      uploadDir: options.uploadDir,
      maxFileSize: options.limit,
      maxTotalFileSize: options.limit,
      maxFieldsSize: options.limit,
      allowEmptyFiles: true,
      minFileSize: 0,
      multiples: true,
      // In the request's own folder (below): what a failed request leaves is removed with it.
      filename: (_name: string, _ext: string, part: unknown) =>
        path.join(uploadFolderOf(part), `${String(++uploads).padStart(12, '0')}-${randomBytes(8).toString('hex')}`),
    },
    onError: (error) => {
      throw error;
    },
  };
  // Each multipart request gets a part rule of its own (it counts that request's files and ends
  // that request's parse). koa-body reads `formidable.onPart` once per request, synchronously as
  // the parse starts (its parseWithFormidable), so the rule is handed over there; a middleware
  // made per request instead cost 60 µs (koa-body validates its options each time).
  let nextRule: OnPart | undefined;
  Object.defineProperty(formOptions.formidable, 'onPart', {
    get: () => {
      const rule = nextRule;
      nextRule = undefined;
      return rule;
    },
  });
  type Parse = (ctx: Context, next: Next) => Promise<unknown>;
  let forms: Promise<Parse> | undefined;
  const parse = async (ctx: Context, multipart: boolean, folder: string | undefined) => {
    const run = await (forms ??= import('koa-body').then(({ koaBody }) => koaBody(formOptions) as Parse));
    if (multipart)
      nextRule = djangoParts({ maxFiles: options.files?.max ?? 0, maxFieldBytes: options.limit, fail: (error) => ctx.req.emit('error', error), folder });
    const parsing = run(ctx, async () => undefined);
    if (nextRule !== undefined) {
      nextRule = undefined;
      throw new Error('koa-body did not take the multipart part rule');
    }
    await parsing;
  };

  let uploadDirReady: Promise<unknown> | undefined;
  return async (ctx: Context, next: Next) => {
    const declared = Number(ctx.get('content-length') || 0);
    if (!hasBody(ctx.req) || !ctx.get('content-type')) {
      ctx.state.body = { data: {}, form: false, files: [] };
      return next();
    }
    if (declared > options.limit) throw tooLarge();
    if (ctx.is('json')) {
      ctx.state.body = { data: parseJsonObject(await readBytes(ctx.req, options.limit, tooLarge)), form: false, files: [] };
      return next();
    }
    if (!ctx.is('urlencoded', 'multipart')) throw detail(415, unsupportedMediaType(ctx.get('content-type')));
    const multipart = ctx.is('multipart') !== false;
    // Not kept when it fails (a read-only data directory): made once it can be.
    if (multipart)
      await (uploadDirReady ??= mkdir(options.uploadDir, { recursive: true }).catch(async (error: unknown) => {
        uploadDirReady = undefined;
        throw await uploadFailure(error, options.uploadDir);
      }));
    // A folder of the request's own for its files (multipart with files allowed). formidable,
    // when a parse fails, unlinks each file 1 ms after it destroys its stream, and a file whose
    // open was still queued (thousands of parts at once, a busy machine) was created after that
    // and stayed until the next start: removing the folder removes what was written, and makes
    // an open still queued fail instead of leaving a file.
    const folder = multipart && options.files ? `r${String(++requests).padStart(12, '0')}` : undefined;
    const folderPath = folder === undefined ? null : path.join(options.uploadDir, folder);
    const removeFolder = () => (folderPath ? rm(folderPath, { recursive: true, force: true, maxRetries: 3 }).catch(() => undefined) : undefined);
    try {
      if (folderPath) await mkdir(folderPath);
      await parse(ctx, multipart, folder);
    } catch (error) {
      // formidable pauses the request while it writes a file and, once it has failed, never
      // resumes it: the rest of the body is read (and dropped) so the client gets its answer.
      ctx.req.resume();
      await removeFolder();
      if (error instanceof TooManyFiles && options.files) throw options.files.tooMany(error.cap);
      if (DISK_ERRORS.has((error as NodeJS.ErrnoException).code ?? '')) throw await uploadFailure(error, options.uploadDir);
      throw formError(error, multipart, tooLarge);
    }
    const files = collectFiles(ctx.request.files);
    const paths = files.map((file) => file.path);
    try {
      await touchFiles(paths);
    } catch (error) {
      await removeFiles(paths);
      await removeFolder();
      throw await uploadFailure(error, options.uploadDir);
    }
    ctx.state.body = { data: { ...(ctx.request.body as Record<string, unknown>) }, form: true, files };
    try {
      await next();
    } finally {
      await removeFiles(paths);
      await removeFolder();
    }
  };
}

/** formidable's error code for one field more than its maxFields (its default, 1,000). */
const MAX_FIELDS_EXCEEDED = 1007;
const MAX_FIELDS = 1000;

/** Codes of an upload's file that could not be written (not a client that went away: ECONNRESET stays a parse error). */
const DISK_ERRORS = new Set(['ENOSPC', 'EDQUOT', 'EROFS', 'EACCES', 'EPERM', 'ENOENT', 'EIO']);

/**
 * An upload that could not be written to the data directory's tmp folder: the store's 507 (a
 * full or read-only disk), not a 500. A recursive mkdir on a read-only mount says ENOENT: the
 * data directory is asked (access W_OK) for the real reason.
 */
async function uploadFailure(error: unknown, uploadDir: string): Promise<StorageError> {
  if ((error as NodeJS.ErrnoException).code !== 'ENOENT') return storageError(error, uploadDir);
  const real = await access(path.dirname(uploadDir), constants.W_OK).then(
    () => error,
    (denied: unknown) => denied,
  );
  return storageError(real, uploadDir);
}

function hasBody(req: IncomingMessage): boolean {
  return req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length'] ?? 0) > 0;
}

async function readBytes(req: IncomingMessage, limit: number, tooLarge: () => HttpError): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > limit) {
      req.resume();
      throw tooLarge();
    }
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks);
}

/** The JSON body as an object, or the framework's errors for anything else (docs/api-contract.md §1). */
function parseJsonObject(bytes: Buffer): Record<string, unknown> {
  // Before JSON.parse, which would hold the event loop for a body nested or wide enough.
  const problem = jsonShapeProblem(bytes);
  if (problem !== null) throw detail(400, jsonParseError(problem));
  const text = bytes.toString('utf8');
  if (text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw detail(400, jsonParseError((error as Error).message));
  }
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  if (value === null) throw new HttpError(400, { non_field_errors: ['No data provided'] });
  throw new HttpError(400, { non_field_errors: [notADictionary(pythonTypeName(value, text))] });
}

/** The Python type name the real service's framework would report for a JSON value. */
function pythonTypeName(value: unknown, text: string): string {
  if (Array.isArray(value)) return 'list';
  if (typeof value === 'string') return 'str';
  if (typeof value === 'boolean') return 'bool';
  return /[.eE]/.test(text) ? 'float' : 'int';
}

function formError(error: unknown, multipart: boolean, tooLarge: () => HttpError): HttpError {
  const e = error as { status?: number; httpCode?: number; message?: string; type?: string; code?: number };
  // formidable's maxFields (1,000, as Django's DATA_UPLOAD_MAX_NUMBER_FIELDS) says 413: it is a parse refusal.
  if (e.code === MAX_FIELDS_EXCEEDED) return detail(400, `Multipart form parse error - more than ${MAX_FIELDS} fields`);
  if (e.status === 413 || e.httpCode === 413 || e.type === 'entity.too.large') return tooLarge();
  const reason = e.message ?? 'could not be parsed';
  return detail(400, multipart ? `Multipart form parse error - ${reason}` : `Form parse error - ${reason}`);
}

interface FormidableFile {
  filepath: string;
  originalFilename: string | null;
  mimetype: string | null;
  size: number;
}

function collectFiles(files: unknown): UploadedFile[] {
  if (!files || typeof files !== 'object') return [];
  const out: UploadedFile[] = [];
  for (const [field, value] of Object.entries(files as Record<string, FormidableFile | FormidableFile[]>)) {
    // One file arrives as an object, several as an array (koa-body 8): normalise.
    for (const file of Array.isArray(value) ? value : [value]) {
      out.push({
        field,
        filename: file.originalFilename || 'attachment',
        contentType: file.mimetype || 'application/octet-stream',
        size: file.size ?? 0,
        path: file.filepath,
      });
    }
  }
  return out.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
