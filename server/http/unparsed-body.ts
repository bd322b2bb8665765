import type { IncomingMessage } from 'node:http';

/** Largest body read for the log alone (a refused request's): JSON or a form, sent with its length. */
const LIMIT = 64 * 1024;
/** How long the rest of such a body may take to arrive. */
const WAIT_MS = 1000;

/**
 * The body of a /v1 request refused before its body was parsed (401, 403 and 404 come first,
 * docs/api-contract.md §1), read for the request log only: so a wait that times out can name a
 * refused send to its recipient (issue 27). Only a small JSON or urlencoded body with a
 * Content-Length, and only what arrives within a second; anything else is not read (undefined).
 * The answer stays what it was: a body that does not parse is not logged.
 */
export async function readUnparsedBody(req: IncomingMessage): Promise<unknown> {
  const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
  if (type !== 'application/json' && type !== 'application/x-www-form-urlencoded') return undefined;
  const length = Number(req.headers['content-length']);
  if (!Number.isSafeInteger(length) || length <= 0 || length > LIMIT || req.readableDidRead || req.readableEnded) return undefined;
  const bytes = await readAll(req, length);
  if (bytes === null) return undefined;
  const text = bytes.toString('utf8');
  if (type === 'application/x-www-form-urlencoded') {
    const form: Record<string, string | string[]> = {};
    const params = new URLSearchParams(text);
    for (const name of new Set(params.keys())) {
      const values = params.getAll(name);
      form[name] = values.length === 1 ? values[0]! : values;
    }
    return form;
  }
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function readAll(req: IncomingMessage, length: number): Promise<Buffer | null> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const done = (value: Buffer | null) => {
      clearTimeout(timer);
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onError);
      resolve(value);
    };
    const onData = (chunk: Buffer) => {
      chunks.push(chunk);
      size += chunk.length;
      if (size > length) done(null);
    };
    const onEnd = () => done(size === length ? Buffer.concat(chunks) : null);
    const onError = () => done(null);
    const timer = setTimeout(() => done(null), WAIT_MS);
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onError);
  });
}
