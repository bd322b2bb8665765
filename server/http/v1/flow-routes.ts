import { z } from 'zod';
import type { Sandbox } from '../../domain/sandbox.ts';
import { detail } from '../errors.ts';
import type { Endpoint, V1Context } from './endpoints.ts';
import { optionalFlags, optionalText, requiredEmail, requiredText, validate } from './fields.ts';
import { bodyParam, queryParam } from './query.ts';
import { subscriptionBody } from './wire.ts';

const subscribeSchema = z.object({
  flow_trigger: requiredText(),
  email: requiredEmail(),
  first_name: optionalText(),
  last_name: optionalText(),
  flags: optionalFlags(),
});

const unsubscribeSchema = z.object({
  flow_trigger: requiredText(),
  email: requiredEmail(),
});

/** /v1/flows/* (api-contract.md §4). */
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
    const filter = { email: queryParam(ctx, 'email'), trigger: queryParam(ctx, 'flow_trigger') };
    ctx.body = subscriptions.list(ctx.state.caller.team.id, filter).map(subscriptionBody);
  };

  const remove = async (ctx: V1Context) => {
    // Parameters come in the query string; a JSON or form body is read too (§4).
    const data = ctx.state.body.data;
    const email = queryParam(ctx, 'email') ?? bodyParam(data, 'email');
    const trigger = queryParam(ctx, 'flow_trigger') ?? bodyParam(data, 'flow_trigger');
    if (email === undefined || trigger === undefined) throw detail(400, 'Both email and flow_trigger are required.');
    await subscriptions.remove(ctx.state.caller.team.id, trigger, email);
    ctx.status = 204;
  };

  return [
    { method: 'POST', path: '/v1/flows/subscribe/', name: 'Flow Subscribe', handle: subscribe },
    { method: 'POST', path: '/v1/flows/unsubscribe/', name: 'Flow Unsubscribe', handle: unsubscribe },
    { method: 'GET', path: '/v1/flows/subscriptions/', name: 'Flow Subscriptions', handle: list },
    { method: 'DELETE', path: '/v1/flows/subscriptions/', name: 'Flow Subscriptions', handle: remove },
  ];
}
