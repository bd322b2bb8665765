import type { Context, Middleware, Next } from 'koa';
import type { Caller } from '../domain/directory/directory.ts';
import type { Clock } from '../domain/time/clock.ts';
import { maskBody, maskHeaders, type RequestLog } from '../domain/toolkit/request-log.ts';
import type { ParsedBody } from './body.ts';
import { readUnparsedBody } from './unparsed-body.ts';
import type { Logger } from './errors.ts';
import type { Endpoint } from './v1/endpoints.ts';

/**
 * Records every /v1 request and its answer in the request log, secrets masked: the API key
 * and Encryption-Key headers, fields named like secrets, long strings cut; uploads as name
 * and size only. Mounted outside the error renderer, so it sees the body that was sent. The
 * entry is written with the next group commit: the response never waits for it.
 */
export function logRequests(log: RequestLog, clock: Clock, logger: Logger): Middleware {
  return async (ctx: Context, next: Next) => {
    if (ctx.path !== '/v1' && !ctx.path.startsWith('/v1/')) return next();
    const at = clock.now().toISOString();
    const started = performance.now();
    try {
      await next();
    } finally {
      try {
        const unparsed = refusedUnread(ctx) ? await readUnparsedBody(ctx.req) : undefined;
        log.record(entry(ctx, at, performance.now() - started, unparsed));
      } catch (error) {
        logger.error('request log entry failed', error);
      }
    }
  };
}

/** A request to send or change something, refused before its body was read: its key (401, 403) or its path (404). */
function refusedUnread(ctx: Context): boolean {
  return ctx.method === 'POST' && ctx.state.body === undefined && (ctx.status === 401 || ctx.status === 403 || ctx.status === 404);
}

function entry(ctx: Context, at: string, durationMs: number, unparsed: unknown) {
  const caller = ctx.state.caller as Caller | undefined;
  const body = ctx.state.body as ParsedBody | undefined;
  const hadBody = ctx.req.headers['transfer-encoding'] !== undefined || Number(ctx.req.headers['content-length'] ?? 0) > 0;
  const query: Record<string, string | string[]> = {};
  // From the raw query string: Koa's ctx.URL is empty when the request can no longer be read
  // (a connection cut after a 413), and the entry must still be written.
  const params = new URLSearchParams(ctx.querystring);
  for (const name of new Set(params.keys())) {
    const values = params.getAll(name);
    query[name] = values.length === 1 ? values[0]! : values;
  }
  return {
    at,
    durationMs: Math.round(durationMs * 10) / 10,
    method: ctx.method,
    path: ctx.path,
    query: maskBody(query) as Record<string, string | string[]>,
    route: (ctx.state.endpoint as Endpoint | undefined)?.path ?? matchedRoute(ctx),
    sender: caller?.sender.id ?? null,
    team: caller?.team.id ?? null,
    status: ctx.state.dropped ? null : ctx.status,
    fault: (ctx.state.fault as string | undefined) ?? null,
    requestHeaders: maskHeaders(ctx.req.headers),
    requestBody: hadBody && body ? maskBody(body.data) : unparsed === undefined ? null : maskBody(unparsed),
    files: (body?.files ?? []).map((f) => ({ field: f.field, filename: f.filename, contentType: f.contentType, size: f.size })),
    responseBody: ctx.state.dropped ? null : responseBody(ctx.body),
  };
}

/** The route pattern the router matched (set by @koa/router), for requests refused before the handler. */
function matchedRoute(ctx: Context): string | null {
  const route = (ctx as Context & { _matchedRoute?: unknown })._matchedRoute;
  return typeof route === 'string' ? route : null;
}

function responseBody(body: unknown): unknown {
  if (body === undefined || body === null) return null;
  if (Buffer.isBuffer(body)) return `(${body.length} bytes)`;
  if (typeof body === 'object' && typeof (body as { pipe?: unknown }).pipe === 'function') return '(stream)';
  return maskBody(body);
}
