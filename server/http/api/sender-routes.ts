import { z } from 'zod';
import { wrapInTemplate } from '../../domain/mail/template.ts';
import type { Sandbox } from '../../domain/sandbox.ts';
import { senderItem } from '../../wire.ts';
import { detail } from '../errors.ts';
import { detail as detailDoc, json } from '../openapi/docs.ts';
import * as S from '../openapi/schemas.ts';
import { bodyString } from './fields.ts';
import { route, type ApiRoute } from './route.ts';

const tags = ['inbox'];

/** The configured senders, and the designers' template preview. */
export function senderRoutes(sandbox: Sandbox): ApiRoute[] {
  const { directory } = sandbox;
  return [
    route({
      method: 'GET',
      path: '/api/senders',
      doc: {
        summary: 'Configured senders',
        description: 'With their API keys and rules.',
        tags,
        responses: { 200: json('Senders.', z.object({ senders: z.array(S.Sender) })) },
      },
      handle(ctx) {
        ctx.body = { senders: directory.config.teams.flatMap((team) => team.senders.map((sender) => senderItem({ team, sender }))) };
      },
    }),
    // The body wrapped exactly as a send through /v1 with use_account_template=true would be.
    route({
      method: 'POST',
      path: '/api/preview',
      body: z.object({ sender: bodyString('sender').describe('Sender id.'), html: bodyString('html') }),
      doc: {
        summary: "Wrap HTML in a sender's template",
        description: 'Exactly as a send with `use_account_template` would be (unchanged for a sender without one).',
        tags,
        bodyExample: { sender: 'acme-main', html: '<p>Hello</p>' },
        responses: { 200: json('Wrapped.', z.object({ html: z.string() })), 400: detailDoc('Bad body or an unknown sender.', 'sender must be a string.') },
      },
      handle(ctx, { body }) {
        const caller = directory.sender(body.sender);
        if (!caller) throw detail(400, `Unknown sender "${body.sender}".`);
        ctx.body = { html: wrapInTemplate(caller.sender.accountTemplate, body.html) };
      },
    }),
  ];
}
