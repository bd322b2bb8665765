import type { Context } from 'koa';
import type { z } from 'zod';
import type { DocumentedRoute } from './openapi/route-doc.ts';

/** What a handler receives: the request's query and body, parsed and validated by the row's schemas. */
export interface RouteInput<Q extends z.ZodType, B extends z.ZodType> {
  query: z.output<Q>;
  body: z.output<B>;
}

/**
 * One row of a route table, the same for /v1 and /api: where it is, its query and body schemas
 * (validated before the handler runs, and the OpenAPI document's parameters and request body),
 * its documentation, and a handler that gets the parsed input, as Hono's `validator()` puts it
 * on the context. Each API mounts its rows with its own order of checks and its own error shape
 * (api/route.ts, v1/endpoints.ts); a handler never validates again.
 */
export interface RouteRow<C extends Context, Q extends z.ZodType, B extends z.ZodType, M extends string = string> extends DocumentedRoute {
  method: M;
  query?: Q;
  body?: B;
  handle(ctx: C, input: RouteInput<Q, B>): unknown;
}
