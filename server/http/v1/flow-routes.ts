import { z } from 'zod';
import type { Sandbox } from '../../domain/sandbox.ts';
import { detail as refuse } from '../errors.ts';
import { detail, json, noContent } from '../openapi/route-doc.ts';
import * as S from '../openapi/schemas.ts';
import * as T from '../../service-texts.ts';
import { endpoint, type Endpoint, type V1Context } from './endpoints.ts';
import { optionalFlags, optionalText, requiredEmail, requiredText } from './serializer-fields.ts';
import { bodyParam } from './query.ts';
import { subscriptionBody } from './representations.ts';

const subscribeSchema = z
  .object({
    flow_trigger: requiredText(),
    email: requiredEmail(),
    first_name: optionalText(),
    last_name: optionalText(),
    flags: optionalFlags(),
  })
  .meta({ id: 'Subscribe' });

const unsubscribeSchema = z
  .object({
    flow_trigger: requiredText(),
    email: requiredEmail(),
  })
  .meta({ id: 'Unsubscribe' });

const listQuery = z.object({ email: z.string().optional().describe('Filter by address.'), flow_trigger: z.string().optional().describe('Filter by flow.') });
/** DELETE reads its parameters from the query string, or else the body. */
const removeQuery = z.object({
  email: z.string().optional().describe('Address (or in a JSON or form body).'),
  flow_trigger: z.string().optional().describe('Flow trigger (or in the body).'),
});
const tags = ['v1'];

/** /v1/flows/* (docs/api-contract.md §4). */
export function flowRoutes(sandbox: Sandbox): Endpoint[] {
  const { subscriptions } = sandbox;

  const subscribe = async (ctx: V1Context, input: z.output<typeof subscribeSchema>) => {
    const { record, flowName } = await subscriptions.subscribe(ctx.state.caller.team.id, {
      trigger: input.flow_trigger,
      email: input.email,
      firstName: input.first_name,
      lastName: input.last_name,
      flags: input.flags,
    });
    ctx.status = 201;
    ctx.body = { detail: T.subscribed(input.email, flowName), subscription_id: record.seq };
  };

  const unsubscribe = async (ctx: V1Context, input: z.output<typeof unsubscribeSchema>) => {
    const { flowName } = await subscriptions.unsubscribe(ctx.state.caller.team.id, input.flow_trigger, input.email);
    ctx.body = { detail: T.unsubscribed(input.email, flowName) };
  };

  const list = async (ctx: V1Context, query: z.output<typeof listQuery>) => {
    const filter = { email: query.email, trigger: query.flow_trigger };
    ctx.body = subscriptions.list(ctx.state.caller.team.id, filter).map(subscriptionBody);
  };

  const remove = async (ctx: V1Context, query: z.output<typeof removeQuery>) => {
    // Parameters come in the query string; a JSON or form body is read too (docs/api-contract.md §4).
    const data = ctx.state.body.data;
    const email = query.email ?? bodyParam(data, 'email');
    const trigger = query.flow_trigger ?? bodyParam(data, 'flow_trigger');
    if (email === undefined || trigger === undefined) throw refuse(400, T.BOTH_REQUIRED);
    await subscriptions.remove(ctx.state.caller.team.id, trigger, email);
    ctx.status = 204;
  };

  return [
    endpoint({
      method: 'POST',
      path: '/v1/flows/subscribe/',
      name: 'Flow Subscribe',
      body: subscribeSchema,
      doc: {
        summary: 'Subscribe to a flow',
        description: 'Creates the recipient if missing; the subscription starts at step 1.',
        tags,
        responses: {
          201: json('Subscribed.', S.Subscribed, {
            detail: T.subscribed('user@example.com', 'Welcome Signup Flow'),
            subscription_id: 1,
          }),
          400: {
            description: "Unknown flow (`Flow with trigger '<trigger>' not found.`), already subscribed, a flow without steps, or field errors.",
            body: z.union([S.Detail, S.FieldErrors]),
            example: { detail: T.flowNotFound('NOPE') },
          },
        },
      },
      handle: (ctx, { body }) => subscribe(ctx, body),
    }),
    endpoint({
      method: 'POST',
      path: '/v1/flows/unsubscribe/',
      name: 'Flow Unsubscribe',
      body: unsubscribeSchema,
      doc: {
        summary: 'Unsubscribe from a flow',
        description: 'Cancels the active subscription.',
        tags,
        responses: {
          200: json('Cancelled.', S.Detail, { detail: T.unsubscribed('user@example.com', 'Welcome Signup Flow') }),
          400: {
            description: 'Unknown flow, not subscribed, or field errors.',
            body: z.union([S.Detail, S.FieldErrors]),
            example: { detail: T.notSubscribed('user@example.com', 'Welcome Signup Flow') },
          },
        },
      },
      handle: (ctx, { body }) => unsubscribe(ctx, body),
    }),
    endpoint({
      method: 'GET',
      path: '/v1/flows/subscriptions/',
      name: 'Flow Subscriptions',
      query: listQuery,
      doc: {
        summary: 'List subscriptions',
        description: 'A plain array, newest first.',
        tags,
        responses: { 200: json('Subscriptions.', z.array(S.V1Subscription)) },
      },
      handle: (ctx, { query }) => list(ctx, query),
    }),
    endpoint({
      method: 'DELETE',
      path: '/v1/flows/subscriptions/',
      name: 'Flow Subscriptions',
      query: removeQuery,
      doc: {
        summary: 'Remove subscriptions',
        description: "Removes that recipient's subscriptions to that flow. Parameters in the query string (a JSON or form body is also read).",
        tags,
        responses: {
          204: noContent(),
          400: detail('A parameter is missing.', T.BOTH_REQUIRED),
          404: detail('No such subscription.', T.NOT_FOUND),
        },
      },
      handle: (ctx, { query }) => remove(ctx, query),
    }),
  ];
}
