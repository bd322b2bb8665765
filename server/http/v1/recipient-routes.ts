import { z } from 'zod';
import { pythonListRepr } from '../../domain/directory/flags.ts';
import type { Sandbox } from '../../domain/sandbox.ts';
import type { Endpoint, V1Context } from './endpoints.ts';
import { optionalFlags, optionalText, requiredEmail, requiredFlags, validate } from './fields.ts';
import { paginate } from './pagination.ts';
import { queryParam } from './query.ts';
import { recipientBody } from './wire.ts';

const upsertSchema = z.object({
  email: requiredEmail(),
  first_name: optionalText(),
  last_name: optionalText(),
  flags: optionalFlags(),
});

const flagsSchema = z.object({
  email: requiredEmail(),
  flags: requiredFlags(),
});

/** /v1/recipients/* (api-contract.md §5). */
export function recipientRoutes(sandbox: Sandbox): Endpoint[] {
  const { recipients } = sandbox;

  const upsert = async (ctx: V1Context) => {
    const input = validate(upsertSchema, ctx.state.body);
    const { record, created } = await recipients.upsert(ctx.state.caller.team.id, input.email, {
      firstName: input.first_name,
      lastName: input.last_name,
      flags: input.flags,
    });
    // 201 on create, 200 on update (sandbox decision, §5).
    ctx.status = created ? 201 : 200;
    ctx.body = recipientBody(record);
  };

  const list = async (ctx: V1Context) => {
    const filter = { email: queryParam(ctx, 'email'), flag: queryParam(ctx, 'flag') };
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
    { method: 'POST', path: '/v1/recipients/', name: 'Recipients', handle: upsert },
    { method: 'GET', path: '/v1/recipients/', name: 'Recipients', handle: list },
    { method: 'POST', path: '/v1/recipients/flags/set/', name: 'Recipient Flags Set', handle: setFlags },
    { method: 'POST', path: '/v1/recipients/flags/clear/', name: 'Recipient Flags Clear', handle: clearFlags },
  ];
}
