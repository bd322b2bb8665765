import type Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import { extract } from '../../domain/mail/extract.ts';
import { textView } from '../../domain/mail/text-view.ts';
import { decodeId } from '../../domain/ids.ts';
import type { MessageFilter } from '../../domain/messages/message-filter.ts';
import { waitForMessage } from '../../domain/messages/message-wait.ts';
import type { ForcedStatus } from '../../domain/messages/messages.ts';
import type { Sandbox } from '../../domain/sandbox.ts';
import type { MessageRecord } from '../../storage/records.ts';
import type { ParsedBody } from '../body.ts';
import { detail, notFound } from '../errors.ts';
import { filterFrom, findMessage } from './message-query.ts';
import { messageSummary } from './wire.ts';
import { apiBody, field, int, oneOf, text } from './params.ts';

export const WAIT_DEFAULT_MS = 10_000;
export const WAIT_MAX_MS = 120_000;
const FORCED: readonly ForcedStatus[] = ['delivered', 'bounced', 'complained', 'failed'];

/**
 * The testing toolkit over captures: wait for one, the latest, search, links and codes, and
 * forcing a delivery outcome. Mounted before /api/messages/:id so "wait", "latest" and
 * "search" are not read as ids.
 */
export function mountCaptureRoutes(router: Router, sandbox: Sandbox, parseV1Body: Middleware): void {
  const parseBody = apiBody(parseV1Body);
  const { messages } = sandbox;

  router.get('/api/messages/wait', async (ctx) => {
    const filter = filterFrom(ctx, sandbox);
    const timeoutMs = int(ctx, 'timeout', WAIT_DEFAULT_MS, 0, WAIT_MAX_MS);
    const gone = new AbortController();
    ctx.res.once('close', () => gone.abort());
    const record = await waitForMessage(messages, sandbox.events, filter, { timeoutMs, signal: gone.signal });
    if (!record) {
      if (gone.signal.aborted) return;
      throw detail(408, `No message matching the filters arrived within ${timeoutMs} ms.`);
    }
    ctx.body = await withContent(sandbox, record);
  });

  router.get('/api/messages/latest', async (ctx) => {
    const record = (await messages.page(filterFrom(ctx, sandbox), 0, 1)).items[0];
    if (!record) throw detail(404, 'No message matches the filters.');
    ctx.body = await withContent(sandbox, record);
  });

  router.get('/api/messages/search', async (ctx) => {
    const filter = filterFrom(ctx, sandbox);
    const limit = int(ctx, 'limit', 50, 1, 500);
    const offset = int(ctx, 'offset', 0, 0, Number.MAX_SAFE_INTEGER);
    const { total, items } = await messages.page(filter, offset, limit);
    ctx.body = { total, offset, limit, messages: await Promise.all(items.map((record) => withContent(sandbox, record, false))) };
  });

  router.get('/api/messages/:id/extract', async (ctx) => {
    const record = await findMessage(sandbox, ctx.params.id!);
    const [html, body] = await Promise.all([messages.html(record), messages.text(record)]);
    ctx.body = extract(html, body);
  });

  router.post('/api/messages/:id/status', parseBody, async (ctx) => {
    const record = await findMessage(sandbox, ctx.params.id!);
    const data = (ctx.state.body as ParsedBody).data;
    const status = field(data, 'status');
    if (status === undefined || !(FORCED as readonly string[]).includes(status)) throw detail(400, `status must be one of ${FORCED.join(', ')}.`);
    ctx.body = messageSummary(await messages.setStatus(record, status as ForcedStatus));
  });
}

/**
 * A capture with its bodies and what was extracted from them: one call gives a test everything.
 * `text` is the plain part, or the HTML rendered as text when there is none (`text_derived`).
 */
async function withContent(sandbox: Sandbox, record: MessageRecord, bodies = true) {
  const [html, body] = await Promise.all([sandbox.messages.html(record), sandbox.messages.text(record)]);
  const view = bodies ? await textView(html, body) : null;
  return {
    ...messageSummary(record),
    ...(view ? { html, text: view.text, text_derived: view.derived } : {}),
    ...extract(html, body),
    url: `/api/messages/${record.id}`,
  };
}

