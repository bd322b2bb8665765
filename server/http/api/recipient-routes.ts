import { z } from 'zod';
import type { Sandbox } from '../../domain/sandbox.ts';
import { recipientItem } from '../../api-representations.ts';
import { detail, json } from '../openapi/route-doc.ts';
import * as S from '../openapi/schemas.ts';
import { paging, text } from './input-fields.ts';
import { route, type ApiRoute } from './route.ts';

/** Every team's recipients with their flags and whether they are blocked. */
export function recipientRoutes(sandbox: Sandbox): ApiRoute[] {
  return [
    route({
      method: 'GET',
      path: '/api/recipients',
      query: z.object({
        ...paging(),
        team: text()
          .refine((team) => team === undefined || sandbox.directory.team(team) !== undefined, { error: (issue) => `Unknown team "${String(issue.input)}".` })
          .describe('Team id.'),
        q: text().describe('Words found in the address or the names.'),
      }),
      doc: {
        summary: 'Recipients of every team',
        description: 'Newest first, with their flags and whether (and why) they are blocked.',
        tags: ['inbox'],
        responses: { 200: json('A page.', S.RecipientList), 400: detail('Unknown team or a bad page.', 'Unknown team "nope".') },
      },
      handle(ctx, { query: { limit, offset, team, q } }) {
        const { total, items } = sandbox.recipients.search({ team, q }, offset, limit);
        ctx.body = { total, offset, limit, recipients: items.map((r) => recipientItem(r, sandbox.blocks)) };
      },
    }),
  ];
}
