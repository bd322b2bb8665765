import type Router from '@koa/router';
import { z } from 'zod';
import type { Context, Middleware, Next } from 'koa';
import type { Caller, Directory } from '../../domain/directory/directory.ts';
import { CREDENTIALS, methodNotAllowed } from '../../service-texts.ts';
import type { ParsedBody } from '../body.ts';
import { detail, HttpError, notFound } from '../errors.ts';
import type { RouteInput, RouteRow } from '../route-row.ts';
import { type ApiKeyThrottle, rateLimited } from './key-throttle.ts';
import { validate } from './serializer-fields.ts';
import { readQuery } from './query.ts';

type Method = 'GET' | 'POST' | 'DELETE';

export interface V1Context extends Context {
  state: Context['state'] & { caller: Caller; body: ParsedBody };
  params: Record<string, string>;
}

/**
 * One /v1 endpoint: a route row (route-row.ts) of a resource's route table. Its query schema
 * names the parameters it reads (each as the framework reads it: last value, blank is absent),
 * its body schema the fields it validates (every failing field at once, as field errors).
 */
export interface Endpoint<Q extends z.ZodType = z.ZodType, B extends z.ZodType = z.ZodType> extends RouteRow<V1Context, Q, B, Method> {
  /** The view name the framework reports for OPTIONS. */
  name: string;
  /** A GET that also reads identifiers from a request body (docs/api-contract.md §3, delivery). */
  readsBody?: boolean;
}

/** An endpoint with its handler's input typed from its schemas (an object schema each, or none). */
export function endpoint<
  Q extends z.ZodObject | z.ZodType<undefined> = z.ZodType<undefined>,
  B extends z.ZodObject | z.ZodType<undefined> = z.ZodType<undefined>,
>(e: Endpoint<Q, B>): Endpoint {
  return e as unknown as Endpoint;
}

export interface V1Deps {
  directory: Directory;
  /** Wrong API keys per client address (key-throttle.ts). */
  keys: ApiKeyThrottle;
  parseBody: Middleware;
  /** Run after the body is parsed, before the handler (fault injection). */
  beforeHandle?: Middleware[];
}

const PARSES = ['application/json', 'application/x-www-form-urlencoded', 'multipart/form-data'];

/**
 * Mounts route tables with the real service's order of checks (docs/api-contract.md §1, §2): the path is resolved
 * first (404, and the trailing-slash rule in `v1Fallback`), then authentication (401/403),
 * then the method (405 with Allow), then the body, then fault injection (`beforeHandle`), then
 * the row's query and body schemas (400 field errors), then the handler with the parsed input.
 */
export function mountV1(router: Router, tables: Endpoint[][], deps: V1Deps): void {
  const byPath = new Map<string, Endpoint[]>();
  for (const endpoint of tables.flat()) {
    // The framework reads named parameters and fields: a /v1 schema is an object schema (checked once, here).
    for (const schema of [endpoint.query, endpoint.body]) {
      if (schema && !(schema instanceof z.ZodObject)) throw new Error(`${endpoint.method} ${endpoint.path}: a /v1 query or body schema is a z.object`);
    }
    byPath.set(endpoint.path, [...(byPath.get(endpoint.path) ?? []), endpoint]);
  }
  for (const [path, endpoints] of byPath) {
    const allowed = allowedMethods(endpoints);
    router.all(
      path,
      authenticate(deps.directory, deps.keys),
      async (ctx, next) => {
        const method = ctx.method === 'HEAD' ? 'GET' : ctx.method;
        const endpoint = endpoints.find((e) => e.method === method);
        if (ctx.method === 'OPTIONS') {
          ctx.set('Allow', allowed);
          ctx.body = { name: endpoints[0]!.name, description: '', renders: ['application/json'], parses: PARSES };
          return;
        }
        if (!endpoint) throw detail(405, methodNotAllowed(ctx.method), { Allow: allowed });
        ctx.state.endpoint = endpoint;
        await next();
      },
      async (ctx, next) => {
        const endpoint = ctx.state.endpoint as Endpoint;
        if (endpoint.method !== 'GET' || endpoint.readsBody) return deps.parseBody(ctx, next);
        ctx.state.body = { data: {}, form: false, files: [] };
        return next();
      },
      ...(deps.beforeHandle ?? []),
      async (ctx) => {
        const endpoint = ctx.state.endpoint as Endpoint;
        await endpoint.handle(ctx as unknown as V1Context, v1Input(endpoint, ctx as unknown as V1Context));
      },
    );
  }
}

/** The endpoint's query and body, read and checked by its (object) schemas; a failing body check is a 400 of field errors. */
function v1Input(endpoint: Endpoint, ctx: V1Context): RouteInput<z.ZodType, z.ZodType> {
  const query = endpoint.query as z.ZodObject | undefined;
  const body = endpoint.body as z.ZodObject | undefined;
  return { query: query && readQuery(ctx, query), body: body && validate(body, ctx.state.body) };
}

/**
 * Requests the route table did not take. Under /v1, a path without its trailing slash is
 * redirected (GET/HEAD, 301) when the slash form exists, else it is a JSON 404 (docs/api-contract.md §1).
 */
export function v1Fallback(router: Router): Middleware {
  return async (ctx: Context, next: Next) => {
    if (ctx.path !== '/v1' && !ctx.path.startsWith('/v1/')) return next();
    const slashed = `${ctx.path}/`;
    if (!ctx.path.endsWith('/') && (ctx.method === 'GET' || ctx.method === 'HEAD') && router.match(slashed, 'GET').route) {
      ctx.status = 301;
      ctx.redirect(slashed + ctx.search);
      ctx.body = { detail: `Moved permanently to ${slashed}${ctx.search}.` };
      return;
    }
    throw notFound();
  };
}

function allowedMethods(endpoints: Endpoint[]): string {
  const methods = new Set<string>();
  for (const e of endpoints) {
    methods.add(e.method);
    if (e.method === 'GET') methods.add('HEAD');
  }
  methods.add('OPTIONS');
  return [...methods].join(', ');
}

/**
 * `Authorization: Api-Key <key>` (docs/api-contract.md §2): 401 unless the key is known, 403 if the team lacks flows.
 * An address that presented too many new wrong keys gets 429 for a key it has not used before,
 * before the key is looked up (key-throttle.ts).
 */
function authenticate(directory: Directory, keys: ApiKeyThrottle): Middleware {
  return async (ctx: Context, next: Next) => {
    const match = /^Api-Key\s+(\S+)\s*$/i.exec(ctx.get('authorization'));
    const key = match?.[1];
    const address = ctx.req.socket.remoteAddress ?? '';
    if (key !== undefined) {
      const wait = keys.retryAfter(address, key);
      if (wait > 0) throw rateLimited(wait);
    }
    const caller = key === undefined ? undefined : directory.byApiKey(key);
    if (key !== undefined) {
      if (caller) keys.right(address, key);
      else keys.wrong(address, key);
    }
    if (!caller) throw new HttpError(401, { detail: CREDENTIALS }, { 'WWW-Authenticate': 'Api-Key' });
    if (!caller.team.flowsEnabled) throw new HttpError(403, { detail: CREDENTIALS });
    ctx.state.caller = caller;
    await next();
  };
}
