import { z } from 'zod';
import { parseDuration } from '../../domain/time/duration.ts';
import type { Sandbox } from '../../domain/sandbox.ts';
import { clockBody } from '../../api-representations.ts';
import { detail, json } from '../openapi/route-doc.ts';
import * as S from '../openapi/schemas.ts';
import { describedAs } from '../openapi/json-schema.ts';
import { route, type ApiRoute } from './route.ts';

const DURATION_HINT = 'a duration like "30s", "15m", "2h", "1d" or "1d12h"';
const INSTANT_HINT = 'an ISO 8601 instant such as "2026-02-17T12:00:00Z"';
const ISO_INSTANT = /^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:\d\d)$/;

const tags = ['clock'];

/**
 * A clock parameter: from the JSON or form body, or else the query string; a JSON number is
 * read as its text, a list as its last item. Required, with the hint of what it must be.
 */
function clockValue<T>(name: string, hint: string, read: (raw: string) => T | null, json: Record<string, unknown>) {
  return describedAs(
    z.unknown().transform((given, ctx) => {
      const value: unknown = Array.isArray(given) ? given[given.length - 1] : given;
      const raw = value === undefined || value === null ? '' : (typeof value === 'string' ? value : JSON.stringify(value)).trim();
      if (raw === '') {
        ctx.addIssue({ code: 'custom', message: `${name} is required: ${hint}.` });
        return z.NEVER;
      }
      const parsed = read(raw);
      if (parsed === null) {
        ctx.addIssue({ code: 'custom', message: `"${raw}" is not ${hint}.` });
        return z.NEVER;
      }
      return parsed;
    }),
    json,
  );
}

const duration = clockValue(
  'duration',
  DURATION_HINT,
  (raw) => {
    const ms = parseDuration(raw);
    return ms === null || !Number.isSafeInteger(ms) ? null : ms;
  },
  { type: 'string', description: '"30s", "15m", "2h", "1d" or "1d12h".', examples: ['2d'] },
);

const instant = clockValue(
  'at',
  INSTANT_HINT,
  (raw) => {
    const at = ISO_INSTANT.test(raw) ? new Date(raw) : null;
    return at === null || Number.isNaN(at.getTime()) ? null : at;
  },
  { type: 'string', format: 'date-time' },
);

/**
 * The sandbox clock (no API key). Advancing or setting it answers after every flow step and
 * delivery outcome that fell due on the way has run, in due order; the clock only moves
 * forward, except `reset`, which returns it to real time.
 */
export function clockRoutes(sandbox: Sandbox): ApiRoute[] {
  const { time } = sandbox;
  const clock = json('The clock.', S.Clock);
  return [
    route({
      method: 'GET',
      path: '/api/clock',
      doc: { summary: 'The sandbox clock', description: 'Now, its offset from real time, and whether it follows real time.', tags, responses: { 200: clock } },
      handle(ctx) {
        ctx.body = clockBody(time.read());
      },
    }),
    route({
      method: 'POST',
      path: '/api/clock/advance',
      body: z.object({ duration }),
      bodyFromQuery: ['duration'],
      doc: {
        summary: 'Advance the clock',
        description: 'Runs every flow step and delivery that fell due, in order, before answering. `duration` may also be given in the query string.',
        tags,
        bodyExample: { duration: '2d' },
        responses: { 200: clock, 400: detail('Missing or bad duration.', '"soon" is not a duration like "30s", "15m", "2h", "1d" or "1d12h".') },
      },
      async handle(ctx, { body }) {
        ctx.body = clockBody(await time.advance(body.duration));
      },
    }),
    route({
      method: 'POST',
      path: '/api/clock/set',
      body: z.object({ at: instant }),
      bodyFromQuery: ['at'],
      doc: {
        summary: 'Set the clock',
        description: 'Moving backwards is refused with 400. `at` may also be given in the query string.',
        tags,
        bodyExample: { at: '2026-03-01T09:00:00Z' },
        responses: {
          200: clock,
          400: detail('Missing or bad instant, or one in the past.', 'at is required: an ISO 8601 instant such as "2026-02-17T12:00:00Z".'),
        },
      },
      async handle(ctx, { body }) {
        ctx.body = clockBody(await time.set(body.at));
      },
    }),
    route({
      method: 'POST',
      path: '/api/clock/reset',
      destructive: true,
      doc: { summary: 'Back to real time', tags, responses: { 200: clock } },
      async handle(ctx) {
        ctx.body = clockBody(await time.reset());
      },
    }),
  ];
}
