import type Router from '@koa/router';
import type { Metrics } from '../metrics.ts';
import type { Readiness } from '../readiness.ts';

/**
 * /livez: the process answers. /readyz: storage is open and every listener is up (the checks
 * the entry point registered), and the process is not shutting down; otherwise 503 with each
 * check's state. Neither is cached.
 */
export function mountHealthRoutes(router: Router, readiness: Readiness): void {
  router.get('/livez', (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    ctx.body = { status: 'ok' };
  });
  router.get('/readyz', (ctx) => {
    const report = readiness.report();
    const checks = report.checks;
    ctx.set('Cache-Control', 'no-store');
    if (report.ready) {
      ctx.body = { status: 'ready', checks };
      return;
    }
    // "Not ready: smtp, http down; storage full."
    const byState = new Map<string, string[]>();
    for (const [name, state] of Object.entries(checks)) if (state !== 'ok') byState.set(state, [...(byState.get(state) ?? []), name]);
    const failing = [...byState].map(([state, names]) => `${names.join(', ')} ${state}`);
    ctx.status = 503;
    ctx.body = report.stopping
      ? { status: 'stopping', detail: 'Shutting down.', checks }
      : { status: 'not ready', detail: `Not ready: ${failing.join('; ')}.`, checks };
  });
}

/** Prometheus exposition of the server's own registry. */
export function mountMetricsRoute(router: Router, metrics: Metrics): void {
  router.get('/metrics', async (ctx) => {
    ctx.set('Cache-Control', 'no-store');
    ctx.type = metrics.contentType;
    ctx.body = await metrics.render();
  });
}
