import { z } from 'zod';
import type { RewrappedCapture, TemplateVersion as WireVersion } from '../../../client/pigeonhole-client.ts';
import { templateProblem, type TemplateVersion } from '../../domain/directory/account-templates.ts';
import { decodeId } from '../../domain/ids.ts';
import { newestOfSender, REWRAP_DEFAULT, REWRAP_MAX, rewrap } from '../../domain/messages/rewrap.ts';
import type { Sandbox } from '../../domain/sandbox.ts';
import { wireTime } from '../../api-representations.ts';
import { detail, type HttpError } from '../errors.ts';
import { detail as detailDoc, json } from '../openapi/route-doc.ts';
import { describedAs } from '../openapi/json-schema.ts';
import * as S from '../openapi/schemas.ts';
import { bodyString, optionalBodyString } from './input-fields.ts';
import { route, type ApiContext, type ApiRoute } from './route.ts';

const tags = ['templates'];
const params = { sender: 'Sender id.' };
const unknownSender = (id: string): HttpError => detail(404, `Unknown sender "${id}".`);
const NO_CONTENT = 'html must contain {{content}} where the body goes.';

/**
 * Each sender's account template, edited while the sandbox runs (docs/sandbox-api.md,
 * "Account templates"): the one in use, a new version, the versions, a revert, and captures re-wrapped
 * in a draft before it is saved.
 */
export function templateRoutes(sandbox: Sandbox): ApiRoute[] {
  const { templates, directory } = sandbox;
  const senderOf = (ctx: ApiContext): string => {
    const id = ctx.params.sender!;
    if (!directory.sender(id)) throw unknownSender(id);
    return id;
  };
  const wire = (sender: string, v: TemplateVersion) =>
    ({ sender, version: v.version, html: v.html, saved_at: v.savedAt === null ? null : wireTime(v.savedAt), current: v.current }) satisfies WireVersion;

  return [
    route({
      method: 'GET',
      path: '/api/senders/:sender/template',
      doc: {
        summary: "A sender's account template in use",
        description: "The version the next send is wrapped in (0: the configuration file's; `html` null when the sender has none).",
        tags,
        params,
        responses: { 200: json('The template.', S.TemplateVersion), 404: detailDoc('No such sender.', 'Unknown sender "nobody".') },
      },
      handle(ctx) {
        const sender = senderOf(ctx);
        ctx.body = wire(sender, templates.versions(sender).find((v) => v.current)!);
      },
    }),
    route({
      method: 'PUT',
      path: '/api/senders/:sender/template',
      body: z.object({ html: bodyString('html').describe('The template: HTML with {{content}} where the body goes.') }),
      doc: {
        summary: 'Save a new version of the account template',
        description:
          "Stored in the sandbox's data (the configuration file is left alone) and used from the next send on, no restart; kept across restarts and resets. At most 20 saved versions per sender (the oldest go first) of at most 128 KB each.",
        tags,
        params,
        bodyExample: { html: '<html><body><table><tr><td>{{content}}</td></tr></table></body></html>' },
        responses: {
          200: json('The new version, now in use.', S.TemplateVersion),
          400: detailDoc('No {{content}}, too large, or not a string.', NO_CONTENT),
          404: detailDoc('No such sender.', 'Unknown sender "nobody".'),
        },
      },
      async handle(ctx, { body }) {
        const sender = senderOf(ctx);
        ctx.body = wire(sender, await templates.save(sender, body.html));
      },
    }),
    route({
      method: 'GET',
      path: '/api/senders/:sender/template/versions',
      doc: {
        summary: "Every version of a sender's account template",
        description: "Version 0 is the configuration file's (`html` null when it has none), then the saved ones, oldest first; `current` marks the one in use.",
        tags,
        params,
        responses: { 200: json('The versions.', S.TemplateVersions), 404: detailDoc('No such sender.', 'Unknown sender "nobody".') },
      },
      handle(ctx) {
        const sender = senderOf(ctx);
        const versions = templates.versions(sender).map((v) => wire(sender, v));
        ctx.body = { sender, current: versions.find((v) => v.current)!.version, versions };
      },
    }),
    route({
      method: 'POST',
      path: '/api/senders/:sender/template/revert',
      body: z.object({ version: versionField().describe("The version to use again; absent or 0: the configuration file's.") }),
      doc: {
        summary: 'Use an earlier version again',
        description: "Makes a saved version, or (`{}`) the configuration file's, the one the next send is wrapped in. No version is deleted.",
        tags,
        params,
        bodyExample: { version: 2 },
        responses: {
          200: json('The version now in use.', S.TemplateVersion),
          400: detailDoc('No such version, or not a whole number.', "Version 7 of acme-main's template does not exist (versions: 0, 1, 2)."),
          404: detailDoc('No such sender.', 'Unknown sender "nobody".'),
        },
      },
      async handle(ctx, { body }) {
        const sender = senderOf(ctx);
        ctx.body = wire(sender, await templates.revert(sender, body.version));
      },
    }),
    route({
      method: 'POST',
      path: '/api/senders/:sender/template/rewrap',
      body: z.object({
        html: optionalBodyString('html').describe('The draft template, with {{content}}; absent: the version in use.'),
        ids: idsField().describe(`Capture ids (at most ${REWRAP_MAX}), in the order to show them; absent: the sender's newest ${REWRAP_DEFAULT}.`),
      }),
      doc: {
        summary: 'Re-wrap captures in a draft template',
        description:
          "Each capture's body as sent (before the template that wrapped it) wrapped in the draft exactly as a send would be, so a draft can be seen on real mail before it is saved. A capture wrapped before Pigeonhole kept the body as sent says `unwrapped_body: not_kept` and has `html` null. Nothing is stored.",
        tags,
        params,
        bodyExample: { html: '<div class="frame">{{content}}</div>' },
        responses: {
          200: json('The captures, re-wrapped.', S.Rewrap),
          400: detailDoc('A draft without {{content}}, or a bad id.', NO_CONTENT),
          404: detailDoc('No such sender.', 'Unknown sender "nobody".'),
        },
      },
      async handle(ctx, { body }) {
        const sender = senderOf(ctx);
        const draft = body.html ?? templates.live(sender)?.html ?? '{{content}}';
        const problem = templateProblem(draft);
        if (problem) throw detail(400, problem);
        const seqs = body.ids ?? newestOfSender(sandbox.messages, sender);
        const captures = (await rewrap(sandbox.messages, draft, seqs)).map(
          ({ record, state, html }) =>
            ({
              id: record.id,
              subject: record.subject,
              created_at: wireTime(record.createdAt),
              template_version: record.templateVersion ?? null,
              unwrapped_body: state,
              html,
            }) satisfies RewrappedCapture,
        );
        ctx.body = { sender, captures };
      },
    }),
  ];
}

/** A template version: a whole number from 0; absent or null is 0 (the configured one). */
function versionField() {
  return describedAs(
    z
      .unknown()
      .optional()
      .transform((raw, ctx) => {
        if (raw === undefined || raw === null) return 0;
        const value = typeof raw === 'string' && /^\d+$/.test(raw.trim()) ? Number(raw) : raw;
        if (typeof value === 'number' && Number.isSafeInteger(value) && value >= 0) return value;
        ctx.addIssue({ code: 'custom', message: 'version must be a whole number (0: the configured template).' });
        return z.NEVER;
      }),
    { type: 'integer', minimum: 0, default: 0 },
  );
}

/** Capture ids: a list, or one string of ids separated by commas; each must name a capture. */
function idsField() {
  return describedAs(
    z
      .unknown()
      .optional()
      .transform((raw, ctx) => {
        if (raw === undefined || raw === null) return undefined;
        const list = typeof raw === 'string' ? raw.split(',').map((id) => id.trim()) : raw;
        const refuse = (message: string) => {
          ctx.addIssue({ code: 'custom', message });
          return z.NEVER;
        };
        if (!Array.isArray(list) || list.some((id) => typeof id !== 'string')) return refuse('ids must be a list of capture ids.');
        if (list.length > REWRAP_MAX) return refuse(`ids may name at most ${REWRAP_MAX} captures.`);
        const seqs: number[] = [];
        for (const id of list as string[]) {
          const seq = decodeId(id);
          if (seq === null) return refuse(`ids: "${id}" is not a capture id.`);
          seqs.push(seq);
        }
        return seqs;
      }),
    { anyOf: [{ type: 'array', items: { type: 'string' } }, { type: 'string' }] },
  );
}
