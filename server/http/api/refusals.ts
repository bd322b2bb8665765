import type { RefusedSend as WireRefusedSend } from '../../../client/pigeonhole-client.ts';
import type { MessageFilter } from '../../domain/messages/message-filter.ts';
import type { Sandbox } from '../../domain/sandbox.ts';
import { refusalKinds, refusalSentence, refusedSends } from '../../domain/messages/refused-sends.ts';

/**
 * A failed wait's or expectation's body with the refused sends that would have matched
 * (issue 27): `detail` gains a sentence naming them, `refused` lists them; neither changes
 * when there are none.
 */
export async function refusalBody(sandbox: Sandbox, filter: MessageFilter, detail: string): Promise<{ detail: string; refused?: WireRefusedSend[] }> {
  const after = filter.afterId === undefined ? undefined : await sandbox.messages.get(filter.afterId);
  const found = await refusedSends(sandbox.requestLog, filter, after === undefined ? null : Date.parse(after.createdAt));
  if (found.total === 0) return { detail };
  return { detail: `${detail} ${refusalSentence(found)}`, refused: found.listed };
}

/** An expectation's refused sends as a body part (`{refused}`, or nothing), for a body made anew from it. */
export function refusedOf(failure: { refused: WireRefusedSend[] }): { refused?: WireRefusedSend[] } {
  return failure.refused.length > 0 ? { refused: failure.refused } : {};
}

/**
 * For a tool's text (the MCP server's wait and expect tools): the refusals an answer lists, in
 * the sandbox's own fixed words only (no subject or address a sender wrote), to put before the
 * answer: " 2 refused sends would have matched (429 daily limit ×2): see refused." or "".
 */
export function refusedNote(body: unknown): string {
  const refused = (body as { refused?: unknown } | null)?.refused;
  if (!Array.isArray(refused) || refused.length === 0) return '';
  const kinds = refusalKinds(refused as Pick<WireRefusedSend, 'status' | 'kind'>[]);
  return ` ${refused.length === 1 ? '1 refused send' : `${refused.length} refused sends`} would have matched (${kinds}): see refused.`;
}
