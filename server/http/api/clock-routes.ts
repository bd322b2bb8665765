import type Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import { wireTime, type ClockState } from '../../domain/flows/clock.ts';
import { parseDuration } from '../../domain/flows/duration.ts';
import type { Sandbox } from '../../domain/sandbox.ts';
import type { ParsedBody } from '../body.ts';
import { detail } from '../errors.ts';

const DURATION_HINT = 'a duration like "30s", "15m", "2h", "1d" or "1d12h"';
const INSTANT_HINT = 'an ISO 8601 instant such as "2026-02-17T12:00:00Z"';
const ISO_INSTANT = /^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:\d\d)$/;

/**
 * The sandbox clock (no API key). Advancing or setting it answers after every flow step and
 * delivery outcome that fell due on the way has run, in due order; the clock only moves
 * forward, except `reset`, which returns it to real time.
 */
export function mountClockRoutes(router: Router, sandbox: Sandbox, parseBody: Middleware): void {
  const { time } = sandbox;

  router.get('/api/clock', (ctx) => {
    ctx.body = clockBody(time.read());
  });

  router.post('/api/clock/advance', parseBody, async (ctx) => {
    const raw = param(ctx, 'duration');
    if (raw === undefined) throw detail(400, `duration is required: ${DURATION_HINT}.`);
    const ms = parseDuration(raw);
    if (ms === null || !Number.isSafeInteger(ms)) throw detail(400, `"${raw}" is not ${DURATION_HINT}.`);
    ctx.body = clockBody(await time.advance(ms));
  });

  router.post('/api/clock/set', parseBody, async (ctx) => {
    const raw = param(ctx, 'at');
    if (raw === undefined) throw detail(400, `at is required: ${INSTANT_HINT}.`);
    const at = ISO_INSTANT.test(raw) ? new Date(raw) : null;
    if (at === null || Number.isNaN(at.getTime())) throw detail(400, `"${raw}" is not ${INSTANT_HINT}.`);
    ctx.body = clockBody(await time.set(at));
  });

  router.post('/api/clock/reset', async (ctx) => {
    ctx.body = clockBody(await time.reset());
  });
}

/** The clock as the sandbox API shows it (and the realtime `clock.changed` frame should). */
export function clockBody(state: ClockState) {
  return { now: wireTime(state.now), offset_ms: state.offsetMs, real_time: state.realTime };
}

/** A field from the JSON or form body, or else the query string. */
function param(ctx: Context, name: string): string | undefined {
  const data = (ctx.state.body as ParsedBody | undefined)?.data ?? {};
  const value = data[name] ?? ctx.URL.searchParams.get(name) ?? undefined;
  const last: unknown = Array.isArray(value) ? value[value.length - 1] : value;
  if (last === undefined || last === null) return undefined;
  const trimmed = (typeof last === 'string' ? last : JSON.stringify(last)).trim();
  return trimmed === '' ? undefined : trimmed;
}
