import { z } from 'zod';
import { pythonListRepr } from '../../domain/directory/flags.ts';
import type { Sandbox } from '../../domain/sandbox.ts';
import type { Endpoint, V1Context } from './endpoints.ts';
import { optionalFlags, optionalText, requiredEmail, requiredFlags, validate } from './fields.ts';
import { paginate } from './pagination.ts';
import { readQuery } from './query.ts';
import { detail, json } from '../openapi/docs.ts';
import * as S from '../openapi/schemas.ts';
import { fieldErrorsDoc } from './docs.ts';
import { recipientBody } from './wire.ts';

const upsertSchema = z
  .object({
    email: requiredEmail(),
    first_name: optionalText(),
    last_name: optionalText(),
    flags: optionalFlags(),
  })
  .meta({ id: 'RecipientUpsert' });

const flagsSchema = z
  .object({
    email: requiredEmail(),
    flags: requiredFlags(),
  })
  .meta({ id: 'FlagsChange' });

const listQuery = z.object({ email: z.string().optional().describe('Exact address.'), flag: z.string().optional().describe('Has this flag.') });
const tags = ['v1'];

/** /v1/recipients/* (docs/api-contract.md §5). */
export function recipientRoutes(sandbox: Sandbox): Endpoint[] {
  const { recipients } = sandbox;

  const upsert = async (ctx: V1Context) => {
    const input = validate(upsertSchema, ctx.state.body);
    const { record, created } = await recipients.upsert(ctx.state.caller.team.id, input.email, {
      firstName: input.first_name,
      lastName: input.last_name,
      flags: input.flags,
    });
    // 201 on create, 200 on update (sandbox decision, docs/api-contract.md §5).
    ctx.status = created ? 201 : 200;
    ctx.body = recipientBody(record);
  };

  const list = async (ctx: V1Context) => {
    const filter = readQuery(ctx, listQuery);
    ctx.body = await paginate(ctx, (offset, limit) => recipients.page(ctx.state.caller.team.id, filter, offset, limit), recipientBody);
  };

  const setFlags = async (ctx: V1Context) => {
    const input = validate(flagsSchema, ctx.state.body);
    await recipients.upsert(ctx.state.caller.team.id, input.email, { flags: input.flags });
    ctx.body = { message: `Flags ${pythonListRepr(input.flags)} set for recipient "${input.email}".` };
  };

  const clearFlags = async (ctx: V1Context) => {
    const input = validate(flagsSchema, ctx.state.body);
    await recipients.clearFlags(ctx.state.caller.team.id, input.email, input.flags);
    ctx.body = { message: `Flags ${pythonListRepr(input.flags)} cleared for recipient "${input.email}".` };
  };

  return [
    {
      method: 'POST',
      path: '/v1/recipients/',
      name: 'Recipients',
      body: upsertSchema,
      doc: {
        summary: 'Create or update a recipient',
        description: 'Given names overwrite, omitted ones are kept, flags are only added.',
        tags,
        responses: {
          200: json('Updated.', S.V1Recipient),
          201: json('Created.', S.V1Recipient),
          400: { ...fieldErrorsDoc, example: { email: ['Enter a valid email address.'] } },
        },
      },
      handle: upsert,
    },
    {
      method: 'GET',
      path: '/v1/recipients/',
      name: 'Recipients',
      query: listQuery,
      doc: {
        summary: 'List recipients',
        description: 'Newest first, 20 per page.',
        tags,
        paginated: true,
        responses: { 200: json('A page.', S.V1RecipientList) },
      },
      handle: list,
    },
    {
      method: 'POST',
      path: '/v1/recipients/flags/set/',
      name: 'Recipient Flags Set',
      body: flagsSchema,
      doc: {
        summary: 'Set flags',
        description: 'Creates the recipient if missing.',
        tags,
        responses: {
          200: json('Set; the list printed as Python prints it.', S.FlagsMessage, {
            message: "Flags ['premium', 'onboarded'] set for recipient \"user@example.com\".",
          }),
          400: { ...fieldErrorsDoc, example: { flags: ['This list may not be empty.'] } },
        },
      },
      handle: setFlags,
    },
    {
      method: 'POST',
      path: '/v1/recipients/flags/clear/',
      name: 'Recipient Flags Clear',
      body: flagsSchema,
      doc: {
        summary: 'Clear flags',
        description: 'Removes the flags (clearing one the recipient lacks is fine).',
        tags,
        responses: {
          200: json('Cleared.', S.FlagsMessage, { message: 'Flags [\'premium\'] cleared for recipient "user@example.com".' }),
          400: { ...fieldErrorsDoc, example: { flags: ['This field is required.'] } },
          404: detail('Unknown recipient.', 'Not found.'),
        },
      },
      handle: clearFlags,
    },
  ];
}
