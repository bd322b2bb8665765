import { z } from 'zod';
import type { Sandbox } from '../../domain/sandbox.ts';
import { blockBody } from '../../api-representations.ts';
import { NOT_FOUND } from '../../service-texts.ts';
import { notFound } from '../errors.ts';
import { detail, json, noContent } from '../openapi/route-doc.ts';
import * as S from '../openapi/schemas.ts';
import { blockTarget, team } from './input-fields.ts';
import { route, type ApiRoute } from './route.ts';

const tags = ['toolkit'];

/** Blocked recipients: list, block, unblock (a configured block too, until a reset restores it). */
export function blockRoutes(sandbox: Sandbox): ApiRoute[] {
  const { blocks } = sandbox;
  const badTarget = detail('Missing or bad team or email.', 'email must be a valid email address.');
  return [
    route({
      method: 'GET',
      path: '/api/blocks',
      query: z.object({ team: team(sandbox).describe('Team id.') }),
      doc: {
        summary: 'Blocked recipients',
        tags,
        responses: {
          200: json('Blocks in force.', z.object({ blocks: z.array(S.BlockEntry) })),
          400: detail('Unknown team.', 'team "nope" is not a configured team.'),
        },
      },
      handle(ctx, { query }) {
        ctx.body = { blocks: blocks.list(query.team).map(blockBody) };
      },
    }),
    route({
      method: 'POST',
      path: '/api/blocks',
      body: blockTarget(sandbox),
      doc: {
        summary: 'Block a recipient',
        tags,
        bodyExample: { team: 'acme', email: 'user@example.com' },
        responses: { 200: json('Already blocked.', S.BlockEntry), 201: json('Blocked.', S.BlockEntry), 400: badTarget },
      },
      async handle(ctx, { body: { team: teamId, email } }) {
        const created = await blocks.add(teamId, email);
        const entry = blocks.list(teamId).find((b) => b.email.toLowerCase() === email.toLowerCase())!;
        ctx.status = created ? 201 : 200;
        ctx.body = blockBody(entry);
      },
    }),
    route({
      method: 'DELETE',
      path: '/api/blocks',
      destructive: true,
      body: blockTarget(sandbox),
      bodyFromQuery: ['team', 'email'],
      doc: {
        summary: 'Unblock a recipient',
        description: 'Also lifts a configured block, until a reset that restores the fixtures. Parameters in the query string or a JSON body.',
        tags,
        bodyOptional: true,
        responses: { 204: noContent(), 400: detail('Missing or bad team or email.', 'team is required.'), 404: detail('Not blocked.', NOT_FOUND) },
      },
      async handle(ctx, { body: { team: teamId, email } }) {
        if (!(await blocks.remove(teamId, email))) throw notFound();
        ctx.status = 204;
      },
    }),
  ];
}
