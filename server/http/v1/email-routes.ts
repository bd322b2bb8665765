import { z } from 'zod';
import { isValidEmail } from '../../domain/email-address.ts';
import type { MessageRecord } from '../../storage/records.ts';
import type { Sandbox } from '../../domain/sandbox.ts';
import { detail, HttpError, notFound } from '../errors.ts';
import type { Endpoint, V1Context } from './endpoints.ts';
import { booleanField, optionalFlags, optionalText, requiredEmail, requiredText, validate } from './fields.ts';
import { paginate } from './pagination.ts';
import { bodyParam, queryParam } from './query.ts';
import { emailListItem } from './wire.ts';

const sendSchema = z.object({
  recipient: requiredEmail(),
  subject: requiredText(),
  body: requiredText({ trim: false }),
  plain_body: optionalText({ trim: false }),
  first_name: optionalText(),
  last_name: optionalText(),
  flags: optionalFlags(),
  use_account_template: booleanField(true),
});

/** /v1/email/* (api-contract.md §3). */
export function emailRoutes(sandbox: Sandbox): Endpoint[] {
  const { messages } = sandbox;

  const send = async (ctx: V1Context) => {
    const input = validate(sendSchema, ctx.state.body);
    const encryptionKey = ctx.get('encryption-key') || undefined;
    const record = await messages.ingest({
      source: 'api',
      caller: ctx.state.caller,
      recipient: input.recipient,
      subject: input.subject,
      html: input.body,
      text: input.plain_body ?? null,
      attachments: ctx.state.body.files
        .filter((file) => file.field === 'attachment')
        .map((file) => ({ filename: file.filename, contentType: file.contentType, tempPath: file.path })),
      firstName: input.first_name,
      lastName: input.last_name,
      flags: input.flags,
      useAccountTemplate: input.use_account_template,
      encryptionKey,
    });
    // A blocked recipient still gets a record and a 200, with the error beside the id (§3).
    ctx.body = record.blocked ? { id: record.id, error: 'Recipient is blocked' } : { id: record.id };
  };

  const list = async (ctx: V1Context) => {
    const recipient = queryParam(ctx, 'recipient');
    // This endpoint reports the field error as a string, not a list (§3).
    if (recipient !== undefined && !isValidEmail(recipient)) throw new HttpError(400, { recipient: 'Enter a valid email address.' });
    ctx.body = await paginate(ctx, (offset, limit) => messages.pageForTeam(ctx.state.caller.team.id, recipient, offset, limit), emailListItem);
  };

  const detailView = async (ctx: V1Context) => {
    const team = ctx.state.caller.team.id;
    const id = ctx.params.id ?? queryParam(ctx, 'id');
    const address = queryParam(ctx, 'email') ?? queryParam(ctx, 'recipient');
    let record: MessageRecord | undefined;
    if (id !== undefined) record = await messages.findForTeam(team, id);
    else if (address !== undefined) record = (await messages.pageForTeam(team, address, 0, 1)).items[0];
    else throw detail(400, 'Provide sqid in URL path or as query parameter (id=<sqid>) or email=<address> as query parameter.');
    if (!record) throw notFound();
    ctx.body = {
      recipient: record.recipient,
      subject: record.subject,
      created_on: emailListItem(record).created_on,
      body: await messages.recordBody(record, ctx.get('encryption-key') || undefined),
    };
  };

  const delivery = async (ctx: V1Context) => {
    const id = ctx.params.id ?? queryParam(ctx, 'id') ?? bodyParam(ctx.state.body.data, 'id');
    if (id === undefined) throw detail(400, 'Provide id in URL path, query parameter, or request payload.');
    const record = await messages.findForTeam(ctx.state.caller.team.id, id);
    // This endpoint's not-found body uses "error", unlike detail (§3).
    if (!record) throw new HttpError(404, { error: 'Email not found' });
    ctx.body = { id: record.id, status: record.status, ses_id: record.sesId };
  };

  return [
    { method: 'POST', path: '/v1/email/send/', name: 'Send Email', handle: send },
    { method: 'GET', path: '/v1/email/list/', name: 'Email List', handle: list },
    { method: 'GET', path: '/v1/email/detail/', name: 'Email Detail', handle: detailView },
    { method: 'GET', path: '/v1/email/detail/:id/', name: 'Email Detail', handle: detailView },
    { method: 'GET', path: '/v1/email/delivery/', name: 'Email Delivery', readsBody: true, handle: delivery },
    { method: 'GET', path: '/v1/email/delivery/:id/', name: 'Email Delivery', readsBody: true, handle: delivery },
  ];
}
