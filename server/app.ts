import Router from '@koa/router';
import Koa from 'koa';
import type { Sandbox } from './domain/sandbox.ts';
import { mountMessageRoutes } from './http/api/message-routes.ts';
import { mountRecipientRoutes } from './http/api/recipient-routes.ts';
import { mountSenderRoutes } from './http/api/sender-routes.ts';
import { bodyParser } from './http/body.ts';
import { errorMiddleware, notFound, type Logger } from './http/errors.ts';
import { homePage } from './http/home.ts';
import { emailRoutes } from './http/v1/email-routes.ts';
import { mountV1, v1Fallback } from './http/v1/endpoints.ts';
import { flowRoutes } from './http/v1/flow-routes.ts';
import { recipientRoutes } from './http/v1/recipient-routes.ts';

export interface AppDeps {
  sandbox: Sandbox;
  /** Largest accepted request body in bytes. */
  maxBodySize: number;
  /** Where multipart uploads land before they are moved into the store. */
  uploadDir: string;
  logger: Logger;
}

/** The HTTP application: the emulated /v1 API, the sandbox's /api, and the inbox page. */
export function createApp({ sandbox, maxBodySize, uploadDir, logger }: AppDeps): Koa {
  const app = new Koa();
  const router = new Router({ strict: true });

  const parseBody = bodyParser({ limit: maxBodySize, uploadDir });
  mountV1(router, [emailRoutes(sandbox), flowRoutes(sandbox), recipientRoutes(sandbox)], { directory: sandbox.directory, parseBody });
  mountMessageRoutes(router, sandbox, parseBody);
  mountSenderRoutes(router, sandbox, parseBody);
  mountRecipientRoutes(router, sandbox);
  router.get(['/', '/assets/:file'], homePage(sandbox));

  app.use(errorMiddleware(logger));
  app.use(router.routes());
  app.use(v1Fallback(router));
  app.use(async () => {
    throw notFound();
  });
  return app;
}
