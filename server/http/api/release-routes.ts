import { z } from 'zod';
import type { Released as WireReleased } from '../../../client/pigeonhole-client.ts';
import { isValidEmail } from '../../domain/email-address.ts';
import type { Sandbox } from '../../domain/sandbox.ts';
import { notFound } from '../errors.ts';
import { detail as detailDoc, json, notFound as notFoundDoc } from '../openapi/route-doc.ts';
import { describedAs } from '../openapi/json-schema.ts';
import * as S from '../openapi/schemas.ts';
import { route, type ApiRoute } from './route.ts';

/** Addresses one release may go to. */
const MAX_RELEASE_RECIPIENTS = 50;

/** Release to a real inbox, on purpose only (docs/sandbox-api.md, "Release to a real inbox"). */
export function releaseRoutes(sandbox: Sandbox): ApiRoute[] {
  return [
    route({
      method: 'POST',
      path: '/api/messages/:id/release',
      body: z.object({
        to: recipients().describe(
          `The addresses to deliver it to (at most ${MAX_RELEASE_RECIPIENTS}): a list, or one string of addresses separated by commas.`,
        ),
      }),
      doc: {
        summary: 'Release a capture to a real inbox',
        description:
          "Relays the capture through the SMTP server given to --relay, its message unchanged (only the envelope's recipients are these), to addresses --relay-allow lets through. Never automatic; each release is logged. 409 when no relay is configured, 403 naming the addresses not allowed, 502 with the relay's answer when it does not take the message.",
        tags: ['messages'],
        params: { id: 'Message (capture) id.' },
        bodyExample: { to: ['me@example.com'] },
        responses: {
          200: json('Relayed.', S.Released),
          400: detailDoc('No address, or one that is not an email address.', 'to must be a list of 1 to 50 email addresses.'),
          403: detailDoc(
            'An address the allow-list does not let through.',
            'Not released: "ceo@example.org" is not allowed (--relay-allow allows *@example.com).',
          ),
          404: notFoundDoc(),
          409: detailDoc(
            'No relay is configured.',
            "No relay is configured, so nothing can be released: start Pigeonhole with --relay smtp://host:port and --relay-allow '*@your-domain.example' (or PIGEONHOLE_RELAY and PIGEONHOLE_RELAY_ALLOW).",
          ),
          502: detailDoc('The relay did not take it.', 'The relay smtp://mail.example:25 did not take the message: connect ECONNREFUSED 127.0.0.1:25'),
        },
      },
      async handle(ctx, { body }) {
        const record = await sandbox.messages.get(ctx.params.id!);
        if (!record) throw notFound();
        const released = await sandbox.releases.release(record, body.to);
        ctx.body = {
          id: record.id,
          to: released.to,
          relay: released.relay,
          accepted: released.accepted,
          rejected: released.rejected,
          response: released.response,
        } satisfies WireReleased;
      },
    }),
  ];
}

/** 1 to 50 email addresses: a list, or one string separated by commas. */
function recipients() {
  const message = `to must be a list of 1 to ${MAX_RELEASE_RECIPIENTS} email addresses.`;
  return describedAs(
    z.unknown().transform((raw, ctx) => {
      const list = typeof raw === 'string' ? raw.split(',').map((a) => a.trim()) : raw;
      if (!Array.isArray(list) || list.length === 0 || list.length > MAX_RELEASE_RECIPIENTS || list.some((a) => typeof a !== 'string')) {
        ctx.addIssue({ code: 'custom', message });
        return z.NEVER;
      }
      const bad = (list as string[]).find((address) => !isValidEmail(address.trim()));
      if (bad !== undefined) {
        ctx.addIssue({ code: 'custom', message: `to: "${bad}" is not an email address.` });
        return z.NEVER;
      }
      return (list as string[]).map((address) => address.trim());
    }),
    { anyOf: [{ type: 'array', items: { type: 'string', format: 'email' }, minItems: 1, maxItems: MAX_RELEASE_RECIPIENTS }, { type: 'string' }] },
  );
}
