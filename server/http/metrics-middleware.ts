import type { Context, Middleware, Next } from 'koa';
import type { Metrics } from '../metrics.ts';

/**
 * Counts every request by the route template the router matched (`/api/messages/:id`), never
 * the raw URL, so the number of series stays bounded whatever clients ask for; requests no
 * route took count as `unmatched`. Outermost, so it sees the status the error middleware set.
 */
export function metricsMiddleware(metrics: Metrics): Middleware {
  return async (ctx: Context, next: Next) => {
    const started = process.hrtime.bigint();
    try {
      await next();
    } finally {
      const matched = (ctx as { _matchedRoute?: unknown })._matchedRoute;
      const route = typeof matched === 'string' ? matched : 'unmatched';
      metrics.httpRequest(route, ctx.method, ctx.status, Number(process.hrtime.bigint() - started) / 1e9);
    }
  };
}
