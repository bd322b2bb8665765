import { z } from 'zod';
import { wrapInTemplate } from '../../domain/mail/template.ts';
import type { Sandbox } from '../../domain/sandbox.ts';
import { senderItem } from '../../wire.ts';
import { detail } from '../errors.ts';
import { detail as detailDoc, json } from '../openapi/docs.ts';
import * as S from '../openapi/schemas.ts';
import { bodyString, sender, team } from './fields.ts';
import { route, type ApiRoute } from './route.ts';

const tags = ['inbox'];
const DailyCountsReset = z.object({ daily_counters: z.number().int().describe('How many senders had a count today.') });

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
        ctx.body = {
          senders: directory.config.teams.flatMap((team) => team.senders.map((sender) => senderItem({ team, sender }, sandbox.messages.sentToday(sender.id)))),
        };
      },
    }),
    route({
      method: 'DELETE',
      path: '/api/senders/daily-counts',
      destructive: true,
      query: z.object({
        sender: sender(sandbox).describe('Only this sender (its id or an API key).'),
        team: team(sandbox).describe("Only this team's senders."),
      }),
      doc: {
        summary: 'Start daily counts over',
        description:
          "Sets the senders' counts against their daily limit back to 0 for the rest of the day (sandbox clock), every sender's unless `sender` or `team` narrows it; captures and everything else stay. For a shared sandbox whose suites send with a limited key (`test-key`: 100 a day): call it once before a run. A namespace reset leaves the counts, a team's or a whole reset clears them with everything else.",
        tags,
        responses: { 200: json('How many senders had a count.', DailyCountsReset, { daily_counters: 1 }) },
      },
      async handle(ctx, { query }) {
        const senders =
          query.sender !== undefined
            ? [query.sender]
            : directory.config.teams.filter((t) => query.team === undefined || t.id === query.team).flatMap((t) => t.senders.map((s) => s.id));
        const narrowed = query.sender !== undefined || query.team !== undefined;
        ctx.body = { daily_counters: await sandbox.messages.resetDailyCounts(narrowed ? new Set(senders) : undefined) };
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
