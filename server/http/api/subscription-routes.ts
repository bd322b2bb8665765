import { z } from 'zod';
import { SUBSCRIPTION_STATUSES } from '../../domain/entities.ts';
import type { Sandbox } from '../../domain/sandbox.ts';
import { subscriptionSummary } from '../../api-representations.ts';
import { detail, json } from '../openapi/route-doc.ts';
import * as S from '../openapi/schemas.ts';
import { oneOf, paging, text } from './input-fields.ts';
import { route, type ApiRoute } from './route.ts';

/** Every team's flow subscriptions with their step timeline (no API key), newest first. */
export function subscriptionRoutes(sandbox: Sandbox): ApiRoute[] {
  const { subscriptions } = sandbox;
  return [
    route({
      method: 'GET',
      path: '/api/subscriptions',
      query: z.object({
        ...paging(),
        status: oneOf('status', SUBSCRIPTION_STATUSES).describe('active, completed or cancelled.'),
        team: text().describe('Team id.'),
        email: text().describe('Address.'),
      }),
      doc: {
        summary: 'Flow subscriptions with their steps',
        description: 'Newest first, each with its step timeline (done, current, pending, skipped).',
        tags: ['flows'],
        responses: {
          200: json('A page.', S.SubscriptionList),
          400: detail('A query parameter has a bad value.', 'status must be one of active, completed, cancelled.'),
        },
      },
      handle(ctx, { query: { limit, offset, ...filter } }) {
        const { total, items } = subscriptions.page(filter, offset, limit);
        ctx.body = { total, offset, limit, subscriptions: items.map((s) => subscriptionSummary(subscriptions, s)) };
      },
    }),
  ];
}
