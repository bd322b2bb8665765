import { z } from 'zod';
import type { Sandbox } from '../../domain/sandbox.ts';
import { requestBody } from '../../api-representations.ts';
import { detail, json, noContent } from '../openapi/route-doc.ts';
import * as S from '../openapi/schemas.ts';
import { describedAs } from '../openapi/json-schema.ts';
import { paging, sender, team, text, trueFalse } from './input-fields.ts';
import { route, type ApiRoute } from './route.ts';

const tags = ['toolkit'];
const METHODS = ['GET', 'POST', 'DELETE', 'PUT', 'PATCH', 'HEAD', 'OPTIONS'] as const;
/** The longest path filter (a logged path is at most what an HTTP request line holds). */
const MAX_PATH_FILTER = 2048;
const STATUS = /^(?:[1-5]\d\d|[1-5]xx|dropped)$/i;

/** The /v1 request log, newest first (the last 10,000 requests are kept). */
export function requestRoutes(sandbox: Sandbox): ApiRoute[] {
  const { requestLog } = sandbox;
  return [
    route({
      method: 'GET',
      path: '/api/requests',
      query: z.object({
        ...paging(),
        status: text()
          .refine((status) => status === undefined || STATUS.test(status), { error: 'status must be a status code (429), a class (4xx) or "dropped".' })
          .describe('A code (429), a class (4xx) or "dropped".'),
        method: describedAs(
          text().transform((method, ctx) => {
            const upper = method?.toUpperCase();
            if (upper === undefined || (METHODS as readonly string[]).includes(upper)) return upper as (typeof METHODS)[number] | undefined;
            ctx.addIssue({ code: 'custom', message: `method must be one of ${METHODS.join(', ')}.` });
            return z.NEVER;
          }),
          { type: 'string', enum: [...METHODS] },
        ).describe('GET, POST, DELETE, ... (any case).'),
        path: text()
          .refine((path) => path === undefined || path.length <= MAX_PATH_FILTER, { error: `path must be at most ${MAX_PATH_FILTER} characters.` })
          .describe('Exact path, or a glob with * ("/v1/email/*"), matched in linear time.'),
        sender: sender(sandbox).describe('Sender id or API key.'),
        team: team(sandbox).describe('Team id.'),
        fault: trueFalse('fault', undefined).describe('true: only requests a fault rule answered or delayed; false: only the others.'),
      }),
      doc: {
        summary: 'The /v1 request log',
        description: 'Newest first; the last 10,000 requests are kept.',
        tags,
        responses: {
          200: json('A page.', S.RequestLogList),
          400: detail('A filter has a bad value.', 'status must be a status code (429), a class (4xx) or "dropped".'),
        },
      },
      async handle(ctx, { query: { limit, offset, ...filter } }) {
        const { total, items } = await requestLog.page(filter, offset, limit);
        ctx.body = { total, offset, limit, requests: items.map(requestBody) };
      },
    }),
    route({
      method: 'DELETE',
      path: '/api/requests',
      destructive: true,
      doc: { summary: 'Clear the request log', tags, responses: { 204: noContent() } },
      async handle(ctx) {
        await requestLog.clear();
        ctx.status = 204;
      },
    }),
  ];
}
