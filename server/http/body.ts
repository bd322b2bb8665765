import { constants } from 'node:fs';
import { access, mkdir, rm, writeFile } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import path from 'node:path';
import type { Context, Next } from 'koa';
import type { HttpMethodEnum, KoaBodyMiddlewareOptions } from 'koa-body';
import { storageError, type StorageError } from '../domain/errors.ts';
import { detail, HttpError } from './errors.ts';

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
}

declare module 'koa' {
  interface DefaultState {
    body?: ParsedBody;
  }
}

/**
 * Parses JSON, form-encoded and multipart bodies into ctx.state.body, with the request body
 * errors of docs/api-contract.md §1: 400 for malformed JSON or a JSON body that is not an object,
 * 415 for other content types, 413 over the size limit. A request without a body (or without
 * a content type, as the real service's framework does) parses as an empty object.
 */
export function bodyParser(options: BodyOptions) {
  // Upload names carry their order of arrival, so attachments keep the order they were sent
  // in (formidable reports files in the order they finish).
  let uploads = 0;
  const tooLarge = () => detail(413, `Request body exceeds the limit of ${options.limit} bytes.`);
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
      filename: () => `${String(++uploads).padStart(12, '0')}-${randomBytes(8).toString('hex')}`,
    },
    onError: (error) => {
      throw error;
    },
  };
  let forms: Promise<(ctx: Context, next: Next) => Promise<unknown>> | undefined;

  let uploadDirReady: Promise<unknown> | undefined;
  return async (ctx: Context, next: Next) => {
    const declared = Number(ctx.get('content-length') || 0);
    if (!hasBody(ctx.req) || !ctx.get('content-type')) {
      ctx.state.body = { data: {}, form: false, files: [] };
      return next();
    }
    if (declared > options.limit) throw tooLarge();
    if (ctx.is('json')) {
      ctx.state.body = { data: parseJsonObject(await readText(ctx.req, options.limit, tooLarge)), form: false, files: [] };
      return next();
    }
    if (!ctx.is('urlencoded', 'multipart')) throw detail(415, `Unsupported media type "${ctx.get('content-type')}" in request.`);
    // Not kept when it fails (a read-only data directory): made once it can be.
    await (uploadDirReady ??= mkdir(options.uploadDir, { recursive: true }).catch(async (error: unknown) => {
      uploadDirReady = undefined;
      throw await uploadFailure(error, options.uploadDir);
    }));
    try {
      forms ??= import('koa-body').then(({ koaBody }) => koaBody(formOptions) as (ctx: Context, next: Next) => Promise<unknown>);
      await (await forms)(ctx, async () => undefined);
    } catch (error) {
      if (DISK_ERRORS.has((error as NodeJS.ErrnoException).code ?? '')) throw await uploadFailure(error, options.uploadDir);
      throw formError(error, ctx.is('multipart') !== false, tooLarge);
    }
    const files = collectFiles(ctx.request.files);
    // formidable creates no file for an empty upload; an empty attachment is still one.
    try {
      await Promise.all(files.map((file) => writeFile(file.path, '', { flag: 'a' })));
    } catch (error) {
      await Promise.all(files.map((file) => rm(file.path, { force: true }).catch(() => undefined)));
      throw await uploadFailure(error, options.uploadDir);
    }
    ctx.state.body = { data: { ...(ctx.request.body as Record<string, unknown>) }, form: true, files };
    try {
      await next();
    } finally {
      await Promise.all(files.map((file) => rm(file.path, { force: true })));
    }
  };
}

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

async function readText(req: IncomingMessage, limit: number, tooLarge: () => HttpError): Promise<string> {
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
  return Buffer.concat(chunks).toString('utf8');
}

/** The JSON body as an object, or the framework's errors for anything else (docs/api-contract.md §1). */
function parseJsonObject(text: string): Record<string, unknown> {
  if (text.trim() === '') return {};
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw detail(400, `JSON parse error - ${(error as Error).message}`);
  }
  if (value !== null && typeof value === 'object' && !Array.isArray(value)) return value as Record<string, unknown>;
  if (value === null) throw new HttpError(400, { non_field_errors: ['No data provided'] });
  throw new HttpError(400, { non_field_errors: [`Invalid data. Expected a dictionary, but got ${pythonTypeName(value, text)}.`] });
}

/** The Python type name the real service's framework would report for a JSON value. */
function pythonTypeName(value: unknown, text: string): string {
  if (Array.isArray(value)) return 'list';
  if (typeof value === 'string') return 'str';
  if (typeof value === 'boolean') return 'bool';
  return /[.eE]/.test(text) ? 'float' : 'int';
}

function formError(error: unknown, multipart: boolean, tooLarge: () => HttpError): HttpError {
  const e = error as { status?: number; httpCode?: number; message?: string; type?: string };
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
