import { setTimeout as sleep } from 'node:timers/promises';
import type { Context, Middleware, Next } from 'koa';
import type { Caller } from '../domain/directory/directory.ts';
import type { Faults } from '../domain/toolkit/faults.ts';
import type { ParsedBody } from './body.ts';
import { HttpError } from './errors.ts';
import { dailyLimitReached, INTERNAL_ERROR, SERVICE_UNAVAILABLE } from '../service-texts.ts';
import { rateLimited } from './v1/key-throttle.ts';
import type { Endpoint } from './v1/endpoints.ts';
import { bodyParam, queryParam } from './v1/query.ts';

/** The contract's body for each status a fault can answer with (docs/api-contract.md §1, §3). */
function faultResponse(status: 429 | 500 | 503, caller: Caller): HttpError {
  if (status === 429) return new HttpError(429, { error: dailyLimitReached(caller.sender.dailyLimit ?? 100) });
  if (status === 500) return new HttpError(500, { detail: INTERNAL_ERROR });
  // The real service's framework's text for 503 (Django REST framework's ServiceUnavailable).
  return new HttpError(503, { detail: SERVICE_UNAVAILABLE });
}

/**
 * Fault injection for /v1, run once a request is known to be a real call: after the path,
 * the API key, the method and the body were accepted, before the handler. So a fault never
 * turns a request the service would refuse (401, 404, 405, 400 body) into something else, and
 * a rule can match the key's sender and the recipient in the body.
 */
export function injectFaults(faults: Faults): Middleware {
  return async (ctx: Context, next: Next) => {
    const endpoint = ctx.state.endpoint as Endpoint;
    const caller = ctx.state.caller as Caller;
    const data = (ctx.state.body as ParsedBody | undefined)?.data ?? {};
    const recipient = bodyParam(data, 'recipient') ?? bodyParam(data, 'email') ?? queryParam(ctx, 'recipient') ?? queryParam(ctx, 'email') ?? null;
    const fired = faults.matchHttp({
      route: endpoint.path,
      path: ctx.path,
      method: ctx.method === 'HEAD' ? 'GET' : ctx.method,
      sender: caller.sender.id,
      recipient,
    });
    if (!fired) return next();
    ctx.state.fault = fired.rule;
    switch (fired.type) {
      case 'status':
        throw faultResponse(fired.status, caller);
      case 'rate_limit':
        throw rateLimited(fired.retryAfterSeconds);
      case 'delay':
        await sleep(fired.ms);
        return next();
      case 'drop':
        // The connection is cut without an answer, as a crashed upstream or proxy would.
        ctx.state.dropped = true;
        ctx.respond = false;
        ctx.req.socket.destroy();
        return;
      case 'smtp_reply':
        return next();
    }
  };
}
