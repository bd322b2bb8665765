import Router from '@koa/router';
import Koa from 'koa';
import type { Sandbox } from './domain/sandbox.ts';
import { mountMessageRoutes } from './http/api/message-routes.ts';
import { bodyParser } from './http/body.ts';
import { errorMiddleware, notFound, type Logger } from './http/errors.ts';
import { mountHealthRoutes, mountMetricsRoute } from './http/health-routes.ts';
import { homePage } from './http/home.ts';
import { emailRoutes } from './http/v1/email-routes.ts';
import { mountV1, v1Fallback } from './http/v1/endpoints.ts';
import { flowRoutes } from './http/v1/flow-routes.ts';
import { metricsMiddleware } from './http/metrics-middleware.ts';
import { recipientRoutes } from './http/v1/recipient-routes.ts';
import type { Metrics } from './metrics.ts';
import { Readiness } from './readiness.ts';

export interface AppDeps {
  sandbox: Sandbox;
  /** Largest accepted request body in bytes. */
  maxBodySize: number;
  /** Where multipart uploads land before they are moved into the store. */
  uploadDir: string;
  logger: Logger;
  /** /readyz's checks; the entry point fills them. Without one the app reports itself ready. */
  readiness?: Readiness;
  /** Request metrics and /metrics; the entry point always passes them, tests may leave them out. */
  metrics?: Metrics;
}

/** The HTTP application: the emulated /v1 API, the sandbox's /api, and the inbox page. */
export function createApp({ sandbox, maxBodySize, uploadDir, logger, readiness = new Readiness(), metrics }: AppDeps): Koa {
  const app = new Koa();
  const router = new Router({ strict: true });

  mountV1(router, [emailRoutes(sandbox), flowRoutes(sandbox), recipientRoutes(sandbox)], {
    directory: sandbox.directory,
    parseBody: bodyParser({ limit: maxBodySize, uploadDir }),
  });
  mountMessageRoutes(router, sandbox);
  router.get('/', homePage(sandbox));
  mountHealthRoutes(router, readiness);
  if (metrics) mountMetricsRoute(router, metrics);

  if (metrics) app.use(metricsMiddleware(metrics));
  app.use(errorMiddleware(logger));
  app.use(router.routes());
  app.use(v1Fallback(router));
  app.use(async () => {
    throw notFound();
  });
  return app;
}
