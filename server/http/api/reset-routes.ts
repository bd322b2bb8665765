import { z } from 'zod';
import type { ResetResult } from '../../../client/pigeonhole-client.ts';
import type { Sandbox } from '../../domain/sandbox.ts';
import { detail, json } from '../openapi/route-doc.ts';
import * as S from '../openapi/schemas.ts';
import { bodyText, namespace, team, trueFalse } from './input-fields.ts';
import { route, type ApiRoute } from './route.ts';

/** Reset: what a test suite calls between tests. */
export function resetRoutes(sandbox: Sandbox): ApiRoute[] {
  return [
    route({
      method: 'POST',
      path: '/api/reset',
      destructive: true,
      body: z.strictObject({
        team: team(sandbox, bodyText('team')).describe('Only this team.'),
        namespace: namespace(bodyText('namespace')).describe(
          "Only this namespace's captures, and the recipients, subscriptions and added blocks of its addresses (with `team`: of that team).",
        ),
        restore_fixtures: trueFalse('restore_fixtures', true).describe('Bring back the configured blocks and fault rules (default true).'),
      }),
      doc: {
        summary: 'Reset the sandbox',
        description:
          'Clears captures (and their files), recipients, subscriptions, blocks, daily counters, the request log and fault rules added through the API, for one team or everything; a reset of everything also returns the clock to real time. `restore_fixtures` (default true) brings back the configured blocks and fault rules; false leaves them off too.',
        tags: ['toolkit'],
        bodyOptional: true,
        bodyExample: { team: 'acme' },
        responses: {
          200: json('What was removed.', S.ResetResult, {
            team: 'acme',
            restore_fixtures: true,
            removed: { subscriptions: 0, messages: 3, recipients: 2, blocks: 0, daily_counters: 1, requests: 4, faults: 0, clock: 0 },
          }),
          400: detail('Unknown team, bad value, or a field this route does not take.', 'team "nope" is not a configured team.'),
        },
      },
      async handle(ctx, { body }) {
        const removed = await sandbox.reset.run({ team: body.team, namespace: body.namespace, restoreFixtures: body.restore_fixtures });
        ctx.body = { team: body.team ?? null, namespace: body.namespace ?? null, restore_fixtures: body.restore_fixtures, removed } satisfies ResetResult;
      },
    }),
  ];
}
