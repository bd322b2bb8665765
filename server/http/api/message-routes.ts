import { createReadStream } from 'node:fs';
import type Router from '@koa/router';
import type { Context } from 'koa';
import { wireTime } from '../../domain/clock.ts';
import type { Sandbox } from '../../domain/sandbox.ts';
import type { MessageRecord } from '../../storage/records.ts';
import { detail, notFound } from '../errors.ts';

const DEFAULT_LIMIT = 50;
const MAX_LIMIT = 500;

/**
 * The sandbox's own API over captured mail (no API key: it is the sandbox's, not the
 * service's). Lists are newest first with limit/offset paging.
 */
export function mountMessageRoutes(router: Router, sandbox: Sandbox): void {
  const { messages } = sandbox;

  router.get('/api/messages', async (ctx) => {
    const limit = intParam(ctx, 'limit', DEFAULT_LIMIT, 1, MAX_LIMIT);
    const offset = intParam(ctx, 'offset', 0, 0, Number.MAX_SAFE_INTEGER);
    const recipient = ctx.URL.searchParams.get('recipient')?.trim() || undefined;
    const { total, items } = messages.page({ recipient }, offset, limit);
    ctx.body = { total, offset, limit, messages: items.map(summary) };
  });

  router.get('/api/messages/:id', async (ctx) => {
    const record = find(sandbox, ctx.params.id!);
    const [html, text] = await Promise.all([messages.html(record), messages.text(record)]);
    ctx.body = {
      ...summary(record),
      first_name: record.firstName,
      last_name: record.lastName,
      flags: record.flags,
      used_template: record.usedTemplate,
      ses_id: record.sesId,
      encrypted: record.encrypted,
      flow: record.flow,
      html,
      text,
      raw_url: `/api/messages/${record.id}/raw`,
      attachments: record.attachments.map((a, index) => ({
        filename: a.filename,
        content_type: a.contentType,
        size: a.size,
        content_id: a.contentId ?? null,
        url: `/api/messages/${record.id}/attachments/${index}`,
      })),
    };
  });

  router.get('/api/messages/:id/raw', async (ctx) => {
    const record = find(sandbox, ctx.params.id!);
    ctx.type = 'message/rfc822';
    ctx.attachment(`${record.id}.eml`, { type: ctx.query.download !== undefined ? 'attachment' : 'inline' });
    ctx.body = createReadStream(messages.rawPath(record));
  });

  router.get('/api/messages/:id/attachments/:index', async (ctx) => {
    const record = find(sandbox, ctx.params.id!);
    const attachment = /^\d+$/.test(ctx.params.index!) ? record.attachments[Number(ctx.params.index)] : undefined;
    if (!attachment) throw notFound();
    ctx.type = attachment.contentType;
    ctx.attachment(attachment.filename, { type: ctx.query.download !== undefined ? 'attachment' : 'inline' });
    ctx.set('X-Content-Type-Options', 'nosniff');
    ctx.set('Content-Security-Policy', "default-src 'none'; img-src 'self'; style-src 'unsafe-inline'; sandbox");
    ctx.body = createReadStream(messages.attachmentPath(record, attachment));
  });
}

function find(sandbox: Sandbox, id: string): MessageRecord {
  const record = sandbox.messages.byId(id);
  if (!record) throw notFound();
  return record;
}

function intParam(ctx: Context, name: string, fallback: number, min: number, max: number): number {
  const raw = ctx.URL.searchParams.get(name);
  if (raw === null || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!/^\d+$/.test(raw.trim()) || value < min || value > max) throw detail(400, `${name} must be a whole number from ${min} to ${max}.`);
  return value;
}

/** A capture as the sandbox API lists it. */
export function summary(m: MessageRecord) {
  return {
    id: m.id,
    source: m.source,
    team: m.team,
    sender: m.sender,
    from: m.from,
    recipient: m.recipient,
    to: m.to,
    cc: m.cc,
    bcc: m.bcc,
    subject: m.subject,
    status: m.status,
    blocked: m.blocked,
    redirected: m.redirected,
    read: m.read,
    attachment_count: m.attachments.length,
    created_at: wireTime(m.createdAt),
  };
}
