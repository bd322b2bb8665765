import { z } from 'zod';
import type { ExpectFailure, ExpectResult } from '../../../client/pigeonhole-client.ts';
import { expectMessages, waitForMessage } from '../../domain/messages/message-wait.ts';
import type { Sandbox } from '../../domain/sandbox.ts';
import { HttpError } from '../errors.ts';
import { detail as detailDoc, json } from '../openapi/route-doc.ts';
import * as S from '../openapi/schemas.ts';
import { capture, filters, messageFilter } from './capture-query.ts';
import { requiredWholeNumber, wholeNumber } from './input-fields.ts';
import { refusalBody } from './refusals.ts';
import { route, type ApiRoute } from './route.ts';

const WAIT_DEFAULT_MS = 10_000;
const WAIT_MAX_MS = 120_000;
/** expect: how long no further match may arrive once exactly `count` matched (capped by `within`). */
const SETTLE_DEFAULT_MS = 250;
/**
 * expect with count 0 ("expect none"): `within` unless given. Short, because a passing check
 * waits all of it (a count of 1 or more answers as soon as the mail is there, so its longer
 * default costs a passing test nothing): docs/testing.md, "Expecting no email".
 */
const EXPECT_NONE_DEFAULT_MS = 1000;
const SETTLE_MAX_MS = 10_000;
const EXPECT_MAX_COUNT = 1000;

const tags = ['messages'];

/**
 * The testing toolkit's holds over captured mail: wait for one, expect an exact number. Both
 * answer as captures are stored (no polling), and a failure names the refused sends that would
 * have matched (refusals.ts). Mounted before /api/messages/:id, so their paths are not read as ids.
 */
export function waitRoutes(sandbox: Sandbox): ApiRoute[] {
  const { messages } = sandbox;
  return [
    route({
      method: 'GET',
      path: '/api/messages/wait',
      query: z.object({
        ...filters(sandbox),
        timeout: wholeNumber('timeout', WAIT_DEFAULT_MS, 0, WAIT_MAX_MS).describe(`Milliseconds to wait, 0–${WAIT_MAX_MS}, default ${WAIT_DEFAULT_MS}.`),
      }),
      doc: {
        summary: 'Wait for a capture',
        description:
          'Holds the request until a capture matching the filters exists, then answers with it (the newest match). A match already stored answers at once, so add `after=<id>` or `since=<time>` (or reset first) to wait only for new mail. No polling: the server is told of each capture as it is stored.',
        tags,
        responses: {
          200: json('The capture, with links and codes.', S.Capture),
          400: detailDoc('A filter or the timeout has a bad value.', 'timeout must be a whole number from 0 to 120000.'),
          408: json(
            'Nothing matched within the timeout; `refused` lists sends that would have matched but were refused (from the request log).',
            S.WaitFailure,
            {
              detail:
                'No message matching the filters arrived within 10000 ms. 1 send that would have matched was refused: 429 daily limit (Daily limit of 100 emails has been reached), request 12 to ada@example.com at 2026-02-17T12:00:00.000Z.',
            },
          ),
        },
      },
      async handle(ctx, { query: { timeout: timeoutMs, ...filter } }) {
        const gone = new AbortController();
        ctx.res.once('close', () => gone.abort());
        const wanted = messageFilter(filter);
        const record = await waitForMessage(messages, sandbox.events, wanted, { timeoutMs, signal: gone.signal });
        if (!record) {
          if (gone.signal.aborted) return;
          throw new HttpError(408, await refusalBody(sandbox, wanted, `No message matching the filters arrived within ${timeoutMs} ms.`));
        }
        ctx.body = await capture(sandbox, record);
      },
    }),
    route({
      method: 'GET',
      path: '/api/messages/expect',
      query: z.object({
        ...filters(sandbox),
        count: requiredWholeNumber('count', 0, EXPECT_MAX_COUNT).describe(`Required: how many captures must match, 0–${EXPECT_MAX_COUNT} (0: none may).`),
        within: wholeNumber('within', WAIT_DEFAULT_MS, 0, WAIT_MAX_MS).describe(
          `Milliseconds to wait for them, 0–${WAIT_MAX_MS}, default ${WAIT_DEFAULT_MS}; with count 0, default ${EXPECT_NONE_DEFAULT_MS} (a passing "none" waits all of it).`,
        ),
        settle: wholeNumber('settle', SETTLE_DEFAULT_MS, 0, SETTLE_MAX_MS).describe(
          `Once exactly count match, milliseconds in which no further one may arrive, 0–${SETTLE_MAX_MS}, default ${SETTLE_DEFAULT_MS}, at most within.`,
        ),
      }),
      doc: {
        summary: 'Expect an exact number of captures',
        description:
          "Counts the captures matching the filters, those stored and those that arrive while it waits (no polling). 200 once exactly `count` match and no further one arrived within `settle` ms (count 0: none matched by the end of `within`); 409 as soon as more than `count` match; 408 when fewer than `count` matched by the end of `within`. Scope it with `namespace` (or `after`/`since`) so only this test's mail counts. Every answer lists the matches, newest first (at most 50), with bodies, links and codes.",
        tags,
        responses: {
          200: json('Exactly count matched.', S.ExpectResult, { count: 0, messages: [] }),
          400: detailDoc('A filter, count, within or settle has a bad value.', 'count is required: a whole number from 0 to 1000.'),
          408: json('Fewer than count matched by the end of within.', S.ExpectFailure, {
            detail: 'Expected 2 messages matching the filters within 10000 ms; 1 matched.',
            count: 1,
            messages: [],
          }),
          409: json('More than count matched.', S.ExpectFailure, { detail: 'Expected no message matching the filters; 1 matched.', count: 1, messages: [] }),
        },
      },
      async handle(ctx, { query: { count, within: given, settle, ...filter } }) {
        const within = count === 0 && ctx.query.within === undefined ? EXPECT_NONE_DEFAULT_MS : given;
        const gone = new AbortController();
        ctx.res.once('close', () => gone.abort());
        const wanted = messageFilter(filter);
        const result = await expectMessages(messages, sandbox.events, wanted, {
          count,
          withinMs: within,
          settleMs: settle,
          signal: gone.signal,
        });
        if (!result) return;
        const listed = await Promise.all(result.records.map((record) => capture(sandbox, record)));
        if (result.outcome === 'exact') {
          ctx.body = { count: result.count, messages: listed } satisfies ExpectResult;
          return;
        }
        const expected = count === 0 ? 'no message' : `${count} message${count === 1 ? '' : 's'}`;
        const message =
          result.outcome === 'more'
            ? `Expected ${expected} matching the filters; ${result.count} matched.`
            : `Expected ${expected} matching the filters within ${within} ms; ${result.count} matched.`;
        if (result.outcome === 'more') throw new HttpError(409, { detail: message, count: result.count, messages: listed } satisfies ExpectFailure);
        throw new HttpError(408, { ...(await refusalBody(sandbox, wanted, message)), count: result.count, messages: listed } satisfies ExpectFailure);
      },
    }),
  ];
}
