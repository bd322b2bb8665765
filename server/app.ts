import type { RequestListener } from 'node:http';
import Router from '@koa/router';
import Koa from 'koa';
import { packageVersion } from './version.ts';
import type { LinkTargetPolicy } from './domain/check/link-targets.ts';
import type { SpamdTarget } from './domain/check/spamd.ts';
import type { Sandbox } from './domain/sandbox.ts';
import { blockRoutes } from './http/api/block-routes.ts';
import { checkRoutes } from './http/api/check-routes.ts';
import { renderRoutes } from './http/api/render-routes.ts';
import { clockRoutes } from './http/api/clock-routes.ts';
import { faultRoutes } from './http/api/fault-routes.ts';
import { messageRoutes } from './http/api/message-routes.ts';
import { recipientRoutes } from './http/api/recipient-routes.ts';
import { requestRoutes } from './http/api/request-routes.ts';
import { resetRoutes } from './http/api/reset-routes.ts';
import { mountApi, type ApiRoute } from './http/api/route.ts';
import { releaseRoutes } from './http/api/release-routes.ts';
import { senderRoutes } from './http/api/sender-routes.ts';
import { templateFileRoutes } from './http/api/template-file-routes.ts';
import { templateRoutes } from './http/api/template-routes.ts';
import { subscriptionRoutes } from './http/api/subscription-routes.ts';
import { waitRoutes } from './http/api/wait-routes.ts';
import { accessMiddleware, openAccess, type Access } from './http/access.ts';
import { bodyParser } from './http/body.ts';
import { errorMiddleware, HttpError, notFound, type Logger } from './http/errors.ts';
import { injectFaults } from './http/faults.ts';
import { mountHealthRoutes, mountMetricsRoute } from './http/health-routes.ts';
import { homePage } from './http/home.ts';
import { previewPage } from './http/preview-page.ts';
import { mountOpenApi } from './http/openapi-document.ts';
import { logRequests } from './http/request-log.ts';
import { emailRoutes } from './http/v1/email-routes.ts';
import { mountV1, v1Fallback, type Endpoint } from './http/v1/endpoints.ts';
import { ApiKeyThrottle } from './http/v1/key-throttle.ts';
import { flowRoutes } from './http/v1/flow-routes.ts';
import { metricsMiddleware } from './http/metrics-middleware.ts';
import { recipientRoutes as v1RecipientRoutes } from './http/v1/recipient-routes.ts';
import { mountMcp } from './mcp/http-route.ts';
import type { Metrics } from './metrics.ts';
import { Readiness } from './readiness.ts';

export interface AppDeps {
  sandbox: Sandbox;
  /** Largest accepted /v1 (and /mcp) request body in bytes. */
  maxBodySize: number;
  /** Largest accepted /api request body in bytes (default: maxBodySize). */
  maxApiBodySize?: number;
  /** Files one /v1 request may carry (default 100). */
  maxAttachments?: number;
  /** Where multipart uploads land before they are moved into the store. */
  uploadDir: string;
  logger: Logger;
  /** /readyz's checks; the entry point fills them. Without one the app reports itself ready. */
  readiness?: Readiness;
  /** Request metrics and /metrics. */
  metrics: Metrics;
  /** The browser guard's policy and the optional login; the defaults without it (docs/security.md). */
  access?: Access;
  /** spamd for the message check's spam score (--spamassassin); absent or null: off. */
  spamassassin?: SpamdTarget | null;
  /** The addresses the link check may reach (docs/security.md); absent: any. */
  linkTargets?: LinkTargetPolicy;
}

/** The HTTP application: the emulated /v1 API, the sandbox's /api, and the inbox page. */
export function createApp(deps: AppDeps): Koa {
  const { sandbox, logger, metrics } = deps;
  const app = new Koa();
  // /mcp's tools call this very app in-process, through the whole chain built below.
  let handler: RequestListener | undefined;
  const router = createRouter(deps, () => (handler ??= app.callback()));

  app.use(metricsMiddleware(metrics));
  app.use(logRequests(sandbox.requestLog, sandbox.clock, logger));
  app.use(errorMiddleware(logger));
  // Host/Origin checks and the login go before every route, so whatever is mounted later is
  // covered too; inside the error renderer (one place renders refusals), the metrics and the
  // /v1 request log (refusals are counted and logged like any answer).
  for (const middleware of accessMiddleware(deps.access ?? openAccess())) app.use(middleware);
  app.use(router.routes());
  app.use(v1Fallback(router));
  app.use(async () => {
    throw notFound();
  });
  return app;
}

/** The two APIs' route tables, one per resource: the emulated service (docs/api-contract.md) and the sandbox's own. */
export function routeTables(sandbox: Sandbox, options: { spamd: SpamdTarget | null; linkTargets?: LinkTargetPolicy }): { v1: Endpoint[][]; api: ApiRoute[][] } {
  return {
    v1: [emailRoutes(sandbox), flowRoutes(sandbox), v1RecipientRoutes(sandbox)],
    api: [
      // Before the captures' routes: /api/messages/wait and /expect are not ids.
      waitRoutes(sandbox),
      messageRoutes(sandbox),
      releaseRoutes(sandbox),
      checkRoutes(sandbox, options),
      renderRoutes(sandbox),
      senderRoutes(sandbox),
      templateRoutes(sandbox),
      templateFileRoutes(sandbox),
      recipientRoutes(sandbox),
      resetRoutes(sandbox),
      blockRoutes(sandbox),
      faultRoutes(sandbox),
      requestRoutes(sandbox),
      clockRoutes(sandbox),
      subscriptionRoutes(sandbox),
    ],
  };
}

/**
 * Every route, one table per resource (the OpenAPI test walks this). `self` is the finished
 * app's request handler, which /mcp's tools call in-process.
 */
export function createRouter(
  {
    sandbox,
    maxBodySize,
    maxApiBodySize = maxBodySize,
    maxAttachments = 100,
    uploadDir,
    readiness = new Readiness(),
    metrics,
    spamassassin = null,
    linkTargets,
  }: AppDeps,
  self: () => RequestListener,
): Router {
  const router = new Router({ strict: true });
  // The service's list-field refusal names the cap (docs/api-contract.md §1).
  const tooManyFiles = (cap: number) => new HttpError(400, { attachment: [`Ensure this field has no more than ${cap} elements.`] });
  const parseBody = bodyParser({ limit: maxBodySize, uploadDir, files: { max: maxAttachments, tooMany: tooManyFiles } });
  // The sandbox API takes no files: file parts are read past, never written.
  const parseApiBody = bodyParser({ limit: maxApiBodySize, uploadDir, files: null });

  const { v1, api } = routeTables(sandbox, { spamd: spamassassin, linkTargets });
  mountV1(router, v1, { directory: sandbox.directory, keys: new ApiKeyThrottle(), parseBody, beforeHandle: [injectFaults(sandbox.faults)] });
  mountApi(router, api, parseApiBody);
  mountMcp(router, { dispatch: self, maxBodySize: maxApiBodySize, version: packageVersion() });
  mountOpenApi(router, { v1: v1.flat(), api: api.flat() });
  mountHealthRoutes(router, readiness);
  mountMetricsRoute(router, metrics);
  router.get(['/', '/assets/:file'], homePage(sandbox));
  router.get('/preview/:id', previewPage(sandbox));
  return router;
}
