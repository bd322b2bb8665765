import { z } from 'zod';
import { isValidEmail } from '../../domain/email-address.ts';
import type { MessageRecord } from '../../domain/entities.ts';
import type { Sandbox } from '../../domain/sandbox.ts';
import * as T from '../../service-texts.ts';
import { detail, HttpError, notFound } from '../errors.ts';
import { endpoint, type Endpoint, type V1Context } from './endpoints.ts';
import { detail as detailResponse, json, type RouteDoc } from '../openapi/route-doc.ts';
import * as S from '../openapi/schemas.ts';
import { fieldErrorsDoc } from './common-responses.ts';
import { booleanField, optionalFlags, optionalText, requiredEmail, requiredText } from './serializer-fields.ts';
import { paginate } from './pagination.ts';
import { bodyParam } from './query.ts';
import { emailListItem } from './representations.ts';

const sendSchema = z
  .object({
    recipient: requiredEmail().describe('Email address (only the first "to").'),
    subject: requiredText(),
    body: requiredText({ trim: false }).describe('HTML body.'),
    plain_body: optionalText({ trim: false }),
    first_name: optionalText(),
    last_name: optionalText(),
    flags: optionalFlags(),
    use_account_template: booleanField(true).describe('Default true. true/false, 1/0, yes/no, on/off in any case.'),
  })
  .meta({ id: 'SendEmailFields' });

/** The send's body as documented: its fields and, in multipart bodies, the attachments. */
const sendDoc = sendSchema
  .extend({
    attachment: z
      .array(z.string().meta({ format: 'binary' }))
      .optional()
      .describe('Files (multipart only), repeatable.'),
  })
  .meta({ id: 'SendEmail' });

const listQuery = z.object({ recipient: z.string().optional().describe('Exact address, any case.') });
const detailQuery = z.object({
  id: z.string().optional().describe('Email id.'),
  email: z.string().optional().describe('Most recent email to this address.'),
  recipient: z.string().optional().describe('Alias of email.'),
});
const deliveryQuery = z.object({ id: z.string().optional().describe('Email id (also read from a JSON or form body).') });
const tags = ['v1'];
const encryptionKey = { name: 'Encryption-Key', description: 'With it an encrypted record is opened; without it the body is the opaque `enc:v1:<base64>`.' };

const detailDoc = (withPath: boolean): RouteDoc => ({
  summary: 'Email detail',
  description:
    "One email of the caller's team. Without a path id: `?id=<id>`, or `?email=<address>` (alias `recipient`) for the most recent email to that address. With an `Encryption-Key` header an encrypted record is opened; without it the body is the opaque `enc:v1:<base64>`.",
  tags,
  ...(withPath ? { params: { id: 'Email id.' } } : {}),
  headers: [encryptionKey],
  responses: {
    200: json('The email.', S.EmailDetail),
    400: detailResponse('No identifier, or the wrong Encryption-Key (`Invalid encryption key.`).', T.DETAIL_NEEDS_ID),
    404: detailResponse('No such email in the team.', T.NOT_FOUND),
  },
});

const deliveryDoc = (withPath: boolean): RouteDoc => ({
  summary: 'Delivery status',
  description:
    'pending until the delivery delay passes, then delivered, bounced or complained (SES simulator addresses), failed when blocked. The id may also be sent in a JSON or form body.',
  tags,
  ...(withPath ? { params: { id: 'Email id.' } } : {}),
  responses: {
    200: json('Status.', S.Delivery),
    400: detailResponse('No identifier.', T.DELIVERY_NEEDS_ID),
    404: json('Unknown id (note the "error" key).', S.ErrorBody, { error: T.EMAIL_NOT_FOUND }),
  },
});

/** /v1/email/* (docs/api-contract.md §3). */
export function emailRoutes(sandbox: Sandbox): Endpoint[] {
  const { messages } = sandbox;

  const send = async (ctx: V1Context, input: z.output<typeof sendSchema>) => {
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
    // A blocked recipient still gets a record and a 200, with the error beside the id (docs/api-contract.md §3).
    ctx.body = record.blocked ? { id: record.id, error: T.RECIPIENT_BLOCKED } : { id: record.id };
  };

  const list = async (ctx: V1Context, { recipient }: z.output<typeof listQuery>) => {
    // This endpoint reports the field error as a string, not a list (docs/api-contract.md §3).
    if (recipient !== undefined && !isValidEmail(recipient)) throw new HttpError(400, { recipient: T.FIELD.badEmail });
    ctx.body = await paginate(ctx, (offset, limit) => messages.pageForTeam(ctx.state.caller.team.id, recipient, offset, limit), emailListItem);
  };

  /** Without a path id, the query names the email (docs/api-contract.md §3). */
  const detailView = async (ctx: V1Context, query?: z.output<typeof detailQuery>) => {
    const team = ctx.state.caller.team.id;
    const id = ctx.params.id ?? query?.id;
    const address = query?.email ?? query?.recipient;
    let record: MessageRecord | undefined;
    if (id !== undefined) record = await messages.findForTeam(team, id);
    else if (address !== undefined) record = (await messages.pageForTeam(team, address, 0, 1)).items[0];
    else throw detail(400, T.DETAIL_NEEDS_ID);
    if (!record) throw notFound();
    ctx.body = {
      recipient: record.recipient,
      subject: record.subject,
      created_on: emailListItem(record).created_on,
      body: await messages.recordBody(record, ctx.get('encryption-key') || undefined),
    };
  };

  /** Without a path id, the query or else the body names the email (docs/api-contract.md §3). */
  const delivery = async (ctx: V1Context, query?: z.output<typeof deliveryQuery>) => {
    const id = ctx.params.id ?? query?.id ?? bodyParam(ctx.state.body.data, 'id');
    if (id === undefined) throw detail(400, T.DELIVERY_NEEDS_ID);
    const record = await messages.findForTeam(ctx.state.caller.team.id, id);
    // This endpoint's not-found body uses "error", unlike detail (docs/api-contract.md §3).
    if (!record) throw new HttpError(404, { error: T.EMAIL_NOT_FOUND });
    ctx.body = { id: record.id, status: record.status, ses_id: record.sesId };
  };

  return [
    endpoint({
      method: 'POST',
      path: '/v1/email/send/',
      name: 'Send Email',
      body: sendSchema,
      doc: {
        summary: 'Send an email',
        description:
          'Captures the email (nothing is delivered). Effects in order: the recipient record is created or updated, the account template wraps the body unless `use_account_template` is false, Development Mode redirects to the development recipient. A blocked recipient gets a record with status failed.',
        tags,
        bodyDoc: sendDoc,
        headers: [{ name: 'Encryption-Key', description: 'Encrypts the stored record body.' }],
        responses: {
          200: json('Accepted and captured; with `"error": "Recipient is blocked"` when blocked.', S.EmailId, { id: 'JDT' }),
          400: { ...fieldErrorsDoc, example: { recipient: [T.FIELD.required], body: [T.FIELD.required] } },
          429: {
            ...json(
              'The sender\'s daily limit (UTC day) is used up; nothing is created. A rate_limit fault rule (/api/faults) answers 429 too, with `{"error": "Request was throttled. Expected available in N seconds."}` and `Retry-After: N`.',
              S.ErrorBody,
              { error: T.dailyLimitReached(100) },
            ),
            headers: {
              'Retry-After': { description: 'Only from a rate_limit fault: whole seconds until the key may send again.', schema: { type: 'integer' } },
            },
          },
        },
      },
      handle: (ctx, { body }) => send(ctx, body),
    }),
    endpoint({
      method: 'GET',
      path: '/v1/email/list/',
      name: 'Email List',
      query: listQuery,
      doc: {
        summary: 'List emails',
        description: "The team's emails, newest first, 20 per page.",
        tags,
        paginated: true,
        responses: {
          200: json('A page.', S.EmailList),
          400: json('Bad recipient filter (a string, not a list).', z.object({ recipient: z.string() }), { recipient: T.FIELD.badEmail }),
        },
      },
      handle: (ctx, { query }) => list(ctx, query),
    }),
    endpoint({
      method: 'GET',
      path: '/v1/email/detail/',
      name: 'Email Detail',
      query: detailQuery,
      doc: detailDoc(false),
      handle: (ctx, { query }) => detailView(ctx, query),
    }),
    endpoint({ method: 'GET', path: '/v1/email/detail/:id/', name: 'Email Detail', doc: detailDoc(true), handle: (ctx) => detailView(ctx) }),
    endpoint({
      method: 'GET',
      path: '/v1/email/delivery/',
      name: 'Email Delivery',
      readsBody: true,
      query: deliveryQuery,
      doc: deliveryDoc(false),
      handle: (ctx, { query }) => delivery(ctx, query),
    }),
    endpoint({
      method: 'GET',
      path: '/v1/email/delivery/:id/',
      name: 'Email Delivery',
      readsBody: true,
      doc: deliveryDoc(true),
      handle: (ctx) => delivery(ctx),
    }),
  ];
}
