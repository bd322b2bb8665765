import type Router from '@koa/router';
import type { Context, Middleware, Next } from 'koa';
import { z } from 'zod';
import type { ParsedBody } from '../body.ts';
import { detail, HttpError } from '../errors.ts';
import { detail as detailDoc } from '../openapi/route-doc.ts';
import type { RouteRow } from '../route-row.ts';

type ApiMethod = 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE';

export type ApiContext = Context & { params: Record<string, string> };

/**
 * One route of the sandbox API: a route row (route-row.ts) whose body schema makes it parse JSON,
 * form and multipart bodies, with the sandbox API's own options.
 */
export interface ApiRoute<Q extends z.ZodType = z.ZodType, B extends z.ZodType = z.ZodType> extends RouteRow<ApiContext, Q, B, ApiMethod> {
  /** Body fields that may be given in the query string instead (taken from there when the body lacks them). */
  bodyFromQuery?: readonly string[];
  /**
   * A route that removes or resets something: a query parameter or body field it does not take
   * is refused (400 naming it) before anything runs, so a typo never widens what is removed.
   */
  destructive?: boolean;
  /** How a failed check reads (default: its message, which names the field). */
  issue?(issue: z.core.$ZodIssue): string;
}

/** A route with its input typed from its schemas (a destructive one documents its refusal of unknown fields). */
export function route<Q extends z.ZodType = z.ZodType<undefined>, B extends z.ZodType = z.ZodType<undefined>>(r: ApiRoute<Q, B>): ApiRoute {
  if (r.destructive) r.doc.responses[400] ??= detailDoc('A query parameter or body field this route does not take.', unknownFields(['force'], r));
  return r as unknown as ApiRoute;
}

/**
 * Mounts the sandbox API's route tables: each route parses its body with the one body parser
 * (a body that is not a JSON object is a `{"detail"}` 400 here, not the /v1 framework's
 * non_field_errors), validates its query and body with its schemas (`validate`), then runs its
 * handler. Every refusal is `{"detail": "<sentence>"}`.
 */
export function mountApi(router: Router, tables: ApiRoute[][], parseBody: Middleware): void {
  const parseApiBody = apiBody(parseBody);
  for (const r of tables.flat()) {
    const run: Middleware = async (ctx) => {
      await r.handle(ctx as ApiContext, validate(r, ctx));
    };
    // A destructive route reads its body even without a schema, to refuse fields it does not take.
    router.register(r.path, [r.method], r.body || r.destructive ? [parseApiBody, run] : [run]);
  }
}

/**
 * The request's query and body checked against the route's schemas. A repeated query parameter
 * (or form field) counts once, with its last value, everywhere in the sandbox API; a body field
 * named in `bodyFromQuery` falls back to the query string. The first failing check is a 400.
 */
function validate<Q extends z.ZodType, B extends z.ZodType>(r: ApiRoute<Q, B>, ctx: Context): { query: z.output<Q>; body: z.output<B> } {
  const query = lastValues(ctx.URL.searchParams);
  if (r.destructive) refuseUnknown(r, query, (ctx.state.body as ParsedBody).data);
  const render = r.issue ?? ((issue: z.core.$ZodIssue) => issue.message);
  const check = <S extends z.ZodType>(schema: S | undefined, input: unknown): z.output<S> => {
    if (!schema) return undefined as z.output<S>;
    const result = schema.safeParse(input);
    if (!result.success) throw detail(400, render(result.error.issues[0]!));
    return result.data;
  };
  const parsedQuery = check(r.query, query);
  let body: Record<string, unknown> | undefined;
  if (r.body) {
    const parsed = ctx.state.body as ParsedBody;
    body = parsed.form ? lastValues(Object.entries(parsed.data)) : { ...parsed.data };
    for (const name of r.bodyFromQuery ?? []) {
      const fallback = query[name];
      if ((body[name] === undefined || body[name] === null) && typeof fallback === 'string' && fallback.trim() !== '') body[name] = fallback.trim();
    }
  }
  return { query: parsedQuery, body: check(r.body, body) };
}

/**
 * A destructive route's refusal of what it does not take (docs/sandbox-api.md): every unknown
 * query parameter and body field, named, with the fields it does take.
 */
function refuseUnknown(r: ApiRoute, query: Record<string, unknown>, body: Record<string, unknown>): void {
  const queryNames = new Set([...fieldNames(r.query), ...(r.bodyFromQuery ?? [])]);
  const bodyNames = new Set(fieldNames(r.body));
  const unknown = [...new Set([...Object.keys(query).filter((name) => !queryNames.has(name)), ...Object.keys(body).filter((name) => !bodyNames.has(name))])];
  if (unknown.length > 0) throw detail(400, unknownFields(unknown, r));
}

/** `Unknown field "tema" (this route takes team, namespace, restore_fixtures).` */
function unknownFields(unknown: readonly string[], r: Pick<ApiRoute, 'query' | 'body' | 'bodyFromQuery'>): string {
  const taken = [...new Set([...fieldNames(r.query), ...(r.bodyFromQuery ?? []), ...fieldNames(r.body)])];
  const names = unknown.map((name) => JSON.stringify(name)).join(', ');
  return `Unknown field${unknown.length === 1 ? '' : 's'} ${names} (this route takes ${taken.length === 0 ? 'none' : taken.join(', ')}).`;
}

/** The field names of an object schema (also under a transform). */
function fieldNames(schema: z.ZodType | undefined): string[] {
  if (schema instanceof z.ZodObject) return Object.keys(schema.shape);
  if (schema instanceof z.ZodPipe) return fieldNames(schema.in as z.ZodType);
  return [];
}

/** Each name once, with its last value (a form field's values arrive as a list). */
function lastValues(entries: Iterable<[string, unknown]>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [name, value] of entries) out[name] = Array.isArray(value) ? value[value.length - 1] : value;
  return out;
}

/**
 * The one body parser, for the sandbox API: a body that is not an object reads
 * {"detail": "..."} like every /api error, not the /v1 framework's non_field_errors.
 */
function apiBody(parseBody: Middleware): Middleware {
  return async (ctx: Context, next: Next) => {
    let parsed = false;
    try {
      await parseBody(ctx, () => {
        parsed = true;
        return next();
      });
    } catch (error) {
      const body = error instanceof HttpError ? (error.body as Record<string, unknown>) : undefined;
      if (!parsed && body && !('detail' in body)) throw detail(400, 'The body must be a JSON object.');
      throw error;
    }
  };
}
