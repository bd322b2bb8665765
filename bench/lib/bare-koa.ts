import Router from '@koa/router';
import Koa from 'koa';
import { koaBody } from 'koa-body';

/** Loose "looks like an email address": something@something.something, no spaces. */
const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

/**
 * The HTTP ceiling: Koa and koa-body (the versions the app uses) with the one route the HTTP
 * benchmark sends to, POST /v1/email/send/. It checks the three fields (recipient, subject,
 * body: present, strings, the recipient looks like an email address), stores nothing and
 * answers `{"id": "x"}`; a missing or bad field is a 400 `{"<field>": ["..."]}`.
 */
export function createBareKoa(): Koa {
  const app = new Koa();
  const router = new Router();
  router.post('/v1/email/send/', koaBody({ jsonLimit: '25mb' }), (ctx) => {
    const body = (ctx.request.body ?? {}) as Record<string, unknown>;
    const errors: Record<string, string[]> = {};
    for (const field of ['recipient', 'subject', 'body']) {
      if (body[field] === undefined) errors[field] = ['This field is required.'];
      else if (typeof body[field] !== 'string') errors[field] = ['Not a valid string.'];
    }
    if (!errors.recipient && !EMAIL.test(body.recipient as string)) errors.recipient = ['Enter a valid email address.'];
    if (Object.keys(errors).length > 0) {
      ctx.status = 400;
      ctx.body = errors;
      return;
    }
    ctx.body = { id: 'x' };
  });
  app.use(router.routes());
  return app;
}
