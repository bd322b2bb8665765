import { z } from 'zod';
import { pythonListRepr } from '../../domain/directory/flags.ts';
import type { Sandbox } from '../../domain/sandbox.ts';
import * as T from '../../service-texts.ts';
import { endpoint, type Endpoint, type V1Context } from './endpoints.ts';
import { optionalFlags, optionalText, requiredEmail, requiredFlags } from './serializer-fields.ts';
import { paginate } from './pagination.ts';
import { detail, json } from '../openapi/route-doc.ts';
import * as S from '../openapi/schemas.ts';
import { fieldErrorsDoc } from './common-responses.ts';
import { recipientBody } from './representations.ts';

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

  const upsert = async (ctx: V1Context, input: z.output<typeof upsertSchema>) => {
    const { record, created } = await recipients.upsert(ctx.state.caller.team.id, input.email, {
      firstName: input.first_name,
      lastName: input.last_name,
      flags: input.flags,
    });
    // 201 on create, 200 on update (sandbox decision, docs/api-contract.md §5).
    ctx.status = created ? 201 : 200;
    ctx.body = recipientBody(record);
  };

  const list = async (ctx: V1Context, filter: z.output<typeof listQuery>) => {
    ctx.body = await paginate(ctx, (offset, limit) => recipients.page(ctx.state.caller.team.id, filter, offset, limit), recipientBody);
  };

  const setFlags = async (ctx: V1Context, input: z.output<typeof flagsSchema>) => {
    await recipients.upsert(ctx.state.caller.team.id, input.email, { flags: input.flags });
    ctx.body = { message: T.flagsSet(pythonListRepr(input.flags), input.email) };
  };

  const clearFlags = async (ctx: V1Context, input: z.output<typeof flagsSchema>) => {
    await recipients.clearFlags(ctx.state.caller.team.id, input.email, input.flags);
    ctx.body = { message: T.flagsCleared(pythonListRepr(input.flags), input.email) };
  };

  return [
    endpoint({
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
          400: { ...fieldErrorsDoc, example: { email: [T.FIELD.badEmail] } },
        },
      },
      handle: (ctx, { body }) => upsert(ctx, body),
    }),
    endpoint({
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
      handle: (ctx, { query }) => list(ctx, query),
    }),
    endpoint({
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
            message: T.flagsSet("['premium', 'onboarded']", 'user@example.com'),
          }),
          400: { ...fieldErrorsDoc, example: { flags: [T.FIELD.emptyList] } },
        },
      },
      handle: (ctx, { body }) => setFlags(ctx, body),
    }),
    endpoint({
      method: 'POST',
      path: '/v1/recipients/flags/clear/',
      name: 'Recipient Flags Clear',
      body: flagsSchema,
      doc: {
        summary: 'Clear flags',
        description: 'Removes the flags (clearing one the recipient lacks is fine).',
        tags,
        responses: {
          200: json('Cleared.', S.FlagsMessage, { message: T.flagsCleared("['premium']", 'user@example.com') }),
          400: { ...fieldErrorsDoc, example: { flags: [T.FIELD.required] } },
          404: detail('Unknown recipient.', T.NOT_FOUND),
        },
      },
      handle: (ctx, { body }) => clearFlags(ctx, body),
    }),
  ];
}
