import type { MessageRecord } from '../entities.ts';
import { wrapInTemplate } from '../mail/template.ts';
import type { Messages } from './messages.ts';
import { unwrappedState, type UnwrappedState } from './reads.ts';

/** How many of a sender's newest captures are re-wrapped when none are named. */
export const REWRAP_DEFAULT = 20;
/** The most captures one re-wrap takes. */
export const REWRAP_MAX = 50;

/** One capture's body as sent, wrapped in a draft template (null when its body as sent was not kept, or it has no HTML). */
export interface Rewrapped {
  record: MessageRecord;
  state: UnwrappedState;
  html: string | null;
}

/**
 * Captures re-rendered through a draft account template (the designers' workbench): each
 * capture's body as sent, before the template that wrapped it, wrapped in `template` exactly
 * as a send would be. `seqs`, newest first; the caller picks them (default: the sender's newest
 * REWRAP_DEFAULT). The domain function behind the sandbox API's re-wrap and the MCP tool.
 */
export async function rewrap(messages: Messages, template: string, seqs: readonly number[]): Promise<Rewrapped[]> {
  const records = await messages.records(seqs.slice(0, REWRAP_MAX));
  return Promise.all(
    records.map(async (record) => {
      const body = await messages.unwrappedHtml(record);
      return { record, state: unwrappedState(record), html: body === null ? null : wrapInTemplate(template, body) };
    }),
  );
}

/** The sender's newest captures (sequence numbers, newest first): what a re-wrap shows by default. */
export function newestOfSender(messages: Messages, sender: string, limit = REWRAP_DEFAULT): number[] {
  return messages.matching({ sender }).slice(0, limit);
}
