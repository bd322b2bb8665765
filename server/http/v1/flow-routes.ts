import { z } from 'zod';
import type { Sandbox } from '../../domain/sandbox.ts';
import { detail as refuse } from '../errors.ts';
import { detail, json, noContent } from '../openapi/docs.ts';
import * as S from '../openapi/schemas.ts';
import type { Endpoint, V1Context } from './endpoints.ts';
import { optionalFlags, optionalText, requiredEmail, requiredText, validate } from './fields.ts';
import { bodyParam, readQuery } from './query.ts';
import { subscriptionBody } from './wire.ts';

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

  const subscribe = async (ctx: V1Context) => {
    const input = validate(subscribeSchema, ctx.state.body);
    const { record, flowName } = await subscriptions.subscribe(ctx.state.caller.team.id, {
      trigger: input.flow_trigger,
      email: input.email,
      firstName: input.first_name,
      lastName: input.last_name,
      flags: input.flags,
    });
    ctx.status = 201;
    ctx.body = { detail: `Recipient '${input.email}' successfully subscribed to flow '${flowName}'.`, subscription_id: record.seq };
  };

  const unsubscribe = async (ctx: V1Context) => {
    const input = validate(unsubscribeSchema, ctx.state.body);
    const { flowName } = await subscriptions.unsubscribe(ctx.state.caller.team.id, input.flow_trigger, input.email);
    ctx.body = { detail: `Recipient '${input.email}' successfully unsubscribed from flow '${flowName}'.` };
  };

  const list = async (ctx: V1Context) => {
    const query = readQuery(ctx, listQuery);
    const filter = { email: query.email, trigger: query.flow_trigger };
    ctx.body = subscriptions.list(ctx.state.caller.team.id, filter).map(subscriptionBody);
  };

  const remove = async (ctx: V1Context) => {
    // Parameters come in the query string; a JSON or form body is read too (docs/api-contract.md §4).
    const data = ctx.state.body.data;
    const query = readQuery(ctx, removeQuery);
    const email = query.email ?? bodyParam(data, 'email');
    const trigger = query.flow_trigger ?? bodyParam(data, 'flow_trigger');
    if (email === undefined || trigger === undefined) throw refuse(400, 'Both email and flow_trigger are required.');
    await subscriptions.remove(ctx.state.caller.team.id, trigger, email);
    ctx.status = 204;
  };

  return [
    {
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
            detail: "Recipient 'user@example.com' successfully subscribed to flow 'Welcome Signup Flow'.",
            subscription_id: 1,
          }),
          400: {
            description: "Unknown flow (`Flow with trigger '<trigger>' not found.`), already subscribed, a flow without steps, or field errors.",
            body: z.union([S.Detail, S.FieldErrors]),
            example: { detail: "Flow with trigger 'NOPE' not found." },
          },
        },
      },
      handle: subscribe,
    },
    {
      method: 'POST',
      path: '/v1/flows/unsubscribe/',
      name: 'Flow Unsubscribe',
      body: unsubscribeSchema,
      doc: {
        summary: 'Unsubscribe from a flow',
        description: 'Cancels the active subscription.',
        tags,
        responses: {
          200: json('Cancelled.', S.Detail, { detail: "Recipient 'user@example.com' successfully unsubscribed from flow 'Welcome Signup Flow'." }),
          400: {
            description: 'Unknown flow, not subscribed, or field errors.',
            body: z.union([S.Detail, S.FieldErrors]),
            example: { detail: "Recipient 'user@example.com' is not subscribed to flow 'Welcome Signup Flow'." },
          },
        },
      },
      handle: unsubscribe,
    },
    {
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
      handle: list,
    },
    {
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
          400: detail('A parameter is missing.', 'Both email and flow_trigger are required.'),
          404: detail('No such subscription.', 'Not found.'),
        },
      },
      handle: remove,
    },
  ];
}
