import type { RefusedSmtp as WireRefusedSmtp, RefusedSend as WireRefusedSend } from '../../../client/pigeonhole-client.ts';
import type { MessageFilter } from '../../domain/messages/message-filter.ts';
import type { Sandbox } from '../../domain/sandbox.ts';
import { refusalKinds, refusalSentence, refusedSends, refusedSmtp, smtpRefusalSentence } from '../../domain/messages/refused-sends.ts';

/**
 * A failed wait's or expectation's body with the refused sends that would have matched
 * (issue 27) and the SMTP commands refused that could have carried the message: `detail` gains
 * a sentence naming each, `refused` and `smtp_refused` list them; nothing changes when there
 * are none.
 */
export async function refusalBody(
  sandbox: Sandbox,
  filter: MessageFilter,
  detail: string,
): Promise<{ detail: string; refused?: WireRefusedSend[]; smtp_refused?: WireRefusedSmtp[] }> {
  const after = filter.afterId === undefined ? undefined : await sandbox.messages.get(filter.afterId);
  const afterMs = after === undefined ? null : Date.parse(after.createdAt);
  const found = await refusedSends(sandbox.requestLog, filter, afterMs);
  const smtp = refusedSmtp(sandbox.requestLog, filter, afterMs);
  const sentences = [detail, refusalSentence(found), smtpRefusalSentence(smtp)].filter((part) => part !== '');
  return {
    detail: sentences.join(' '),
    ...(found.total > 0 ? { refused: found.listed } : {}),
    ...(smtp.total > 0 ? { smtp_refused: smtp.listed } : {}),
  };
}

/** An expectation's refusals as body parts (`{refused, smtp_refused}`, each only when there are some), for a body made anew from it. */
export function refusedOf(failure: { refused: WireRefusedSend[]; smtpRefused: WireRefusedSmtp[] }): {
  refused?: WireRefusedSend[];
  smtp_refused?: WireRefusedSmtp[];
} {
  return {
    ...(failure.refused.length > 0 ? { refused: failure.refused } : {}),
    ...(failure.smtpRefused.length > 0 ? { smtp_refused: failure.smtpRefused } : {}),
  };
}

/**
 * For a tool's text (the MCP server's wait and expect tools): the refusals an answer lists, in
 * the sandbox's own fixed words only (no subject or address a sender wrote), to put before the
 * answer: " 2 refused sends would have matched (429 daily limit ×2): see refused." or "".
 */
export function refusedNote(body: unknown): string {
  const { refused, smtp_refused: smtp } = (body ?? {}) as { refused?: unknown; smtp_refused?: unknown };
  let note = '';
  if (Array.isArray(refused) && refused.length > 0) {
    const kinds = refusalKinds(refused as Pick<WireRefusedSend, 'status' | 'kind'>[]);
    note += ` ${refused.length === 1 ? '1 refused send' : `${refused.length} refused sends`} would have matched (${kinds}): see refused.`;
  }
  if (Array.isArray(smtp) && smtp.length > 0) {
    const kinds = refusalKinds((smtp as Pick<WireRefusedSmtp, 'code' | 'kind'>[]).map((r) => ({ status: r.code, kind: r.kind })));
    note += ` ${smtp.length === 1 ? '1 refused SMTP command' : `${smtp.length} refused SMTP commands`} could have carried it (${kinds}): see smtp_refused.`;
  }
  return note;
}
