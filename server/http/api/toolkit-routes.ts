import type Router from '@koa/router';
import type { Context, Middleware } from 'koa';
import type { BlockEntry } from '../../domain/toolkit/blocks.ts';
import { wireTime } from '../../domain/flows/clock.ts';
import { isValidEmail } from '../../domain/email-address.ts';
import { InvalidFaultRule } from '../../domain/toolkit/faults.ts';
import type { Sandbox } from '../../domain/sandbox.ts';
import type { RequestLogRecord } from '../../storage/records.ts';
import type { ParsedBody } from '../body.ts';
import { detail, notFound } from '../errors.ts';
import { apiBody, bool, field, int, oneOf, senderId, team, text } from './params.ts';

const body = (ctx: Context) => (ctx.state.body as ParsedBody).data;

/** Reset, blocks, fault rules and the request log: the sandbox API a test suite drives. */
export function mountToolkitRoutes(router: Router, sandbox: Sandbox, parseV1Body: Middleware): void {
  const parseBody = apiBody(parseV1Body);
  router.post('/api/reset', parseBody, async (ctx) => {
    const data = body(ctx);
    const scope = team(sandbox, field(data, 'team'));
    const restoreFixtures = bool(data.restore_fixtures, 'restore_fixtures', true);
    const removed = await sandbox.reset.run({ team: scope, restoreFixtures });
    ctx.body = { team: scope ?? null, restore_fixtures: restoreFixtures, removed };
  });

  router.get('/api/blocks', async (ctx) => {
    ctx.body = { blocks: sandbox.blocks.list(team(sandbox, text(ctx, 'team'))).map(blockBody) };
  });

  router.post('/api/blocks', parseBody, async (ctx) => {
    const { teamId, email } = blockTarget(sandbox, body(ctx));
    const created = await sandbox.blocks.add(teamId, email);
    const entry = sandbox.blocks.list(teamId).find((b) => b.email.toLowerCase() === email.toLowerCase())!;
    ctx.status = created ? 201 : 200;
    ctx.body = blockBody(entry);
  });

  router.delete('/api/blocks', parseBody, async (ctx) => {
    const data = { ...body(ctx) };
    for (const name of ['team', 'email']) data[name] ??= text(ctx, name);
    const { teamId, email } = blockTarget(sandbox, data);
    if (!(await sandbox.blocks.remove(teamId, email))) throw notFound();
    ctx.status = 204;
  });

  router.get('/api/faults', async (ctx) => {
    ctx.body = { faults: sandbox.faults.list() };
  });

  router.post('/api/faults', parseBody, async (ctx) => {
    try {
      ctx.body = sandbox.faults.add(body(ctx));
    } catch (error) {
      if (error instanceof InvalidFaultRule) throw detail(400, error.message);
      throw error;
    }
    ctx.status = 201;
  });

  router.delete('/api/faults', async (ctx) => {
    sandbox.faults.reset({ restoreConfigured: false });
    ctx.status = 204;
  });

  router.get('/api/faults/:id', async (ctx) => {
    const rule = sandbox.faults.get(ctx.params.id!);
    if (!rule) throw notFound();
    ctx.body = rule;
  });

  router.delete('/api/faults/:id', async (ctx) => {
    if (!sandbox.faults.remove(ctx.params.id!)) throw notFound();
    ctx.status = 204;
  });

  router.get('/api/requests', async (ctx) => {
    const limit = int(ctx, 'limit', 50, 1, 500);
    const offset = int(ctx, 'offset', 0, 0, Number.MAX_SAFE_INTEGER);
    const status = text(ctx, 'status');
    if (status !== undefined && !/^(?:[1-5]\d\d|[1-5]xx|dropped)$/i.test(status)) throw detail(400, 'status must be a status code (429), a class (4xx) or "dropped".');
    const fault = text(ctx, 'fault');
    const { total, items } = await sandbox.requestLog.page(
      {
        method: oneOf(text(ctx, 'method')?.toUpperCase(), 'method', ['GET', 'POST', 'DELETE', 'PUT', 'PATCH', 'HEAD', 'OPTIONS']),
        path: text(ctx, 'path'),
        status,
        sender: senderId(sandbox, text(ctx, 'sender')),
        team: team(sandbox, text(ctx, 'team')),
        fault: fault === undefined ? undefined : bool(fault, 'fault', false),
      },
      offset,
      limit,
    );
    ctx.body = { total, offset, limit, requests: items.map(requestBody) };
  });

  router.delete('/api/requests', async (ctx) => {
    await sandbox.requestLog.clear();
    ctx.status = 204;
  });
}

function blockTarget(sandbox: Sandbox, data: Record<string, unknown>): { teamId: string; email: string } {
  const teamId = team(sandbox, field(data, 'team'));
  const email = field(data, 'email');
  if (teamId === undefined) throw detail(400, 'team is required.');
  if (email === undefined || !isValidEmail(email)) throw detail(400, 'email must be a valid email address.');
  return { teamId, email };
}

function blockBody(b: BlockEntry) {
  return { team: b.team, email: b.email, reason: b.reason, created_at: b.createdAt === null ? null : wireTime(b.createdAt) };
}

/** A request log entry on the wire. */
export function requestBody(r: RequestLogRecord) {
  return {
    id: r.seq,
    at: r.at,
    duration_ms: r.durationMs,
    method: r.method,
    path: r.path,
    query: r.query,
    route: r.route,
    sender: r.sender,
    team: r.team,
    status: r.status,
    fault: r.fault,
    request: {
      headers: r.requestHeaders,
      body: r.requestBody,
      files: r.files.map((f) => ({ field: f.field, filename: f.filename, content_type: f.contentType, size: f.size })),
    },
    response: { body: r.responseBody },
  };
}
