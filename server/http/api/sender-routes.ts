import { z } from 'zod';
import { templateProblem } from '../../domain/directory/account-templates.ts';
import { wrapInTemplate } from '../../domain/mail/template.ts';
import type { Sandbox } from '../../domain/sandbox.ts';
import { senderItem } from '../../api-representations.ts';
import { detail } from '../errors.ts';
import { detail as detailDoc, json } from '../openapi/route-doc.ts';
import * as S from '../openapi/schemas.ts';
import { bodyString, optionalBodyString, sender, team } from './input-fields.ts';
import { route, type ApiRoute } from './route.ts';

const tags = ['inbox'];
const DailyCountsReset = z.object({ daily_counters: z.number().int().describe('How many senders had a count today.') });

/** The configured senders, and the designers' template preview. */
export function senderRoutes(sandbox: Sandbox): ApiRoute[] {
  const { directory, templates } = sandbox;
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
          senders: directory.config.teams.flatMap((team) =>
            team.senders.map((sender) => senderItem({ team, sender }, sandbox.messages.sentToday(sender.id), templates.live(sender.id))),
          ),
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
      body: z.object({
        sender: bodyString('sender').describe('Sender id.'),
        html: bodyString('html'),
        template: optionalBodyString('template').describe("A draft account template (with {{content}}) to wrap in instead of the sender's."),
      }),
      doc: {
        summary: "Wrap HTML in a sender's template",
        description:
          'Exactly as a send with `use_account_template` would be now (the version in use; unchanged for a sender without one), or in a draft `template` (400 without {{content}}).',
        tags,
        bodyExample: { sender: 'acme-main', html: '<p>Hello</p>' },
        responses: { 200: json('Wrapped.', z.object({ html: z.string() })), 400: detailDoc('Bad body or an unknown sender.', 'sender must be a string.') },
      },
      handle(ctx, { body }) {
        const caller = directory.sender(body.sender);
        if (!caller) throw detail(400, `Unknown sender "${body.sender}".`);
        if (body.template !== undefined) {
          const problem = templateProblem(body.template);
          if (problem) throw detail(400, problem.replace(/^html/, 'template'));
        }
        ctx.body = { html: wrapInTemplate(body.template ?? templates.live(caller.sender.id)?.html ?? null, body.html) };
      },
    }),
  ];
}
