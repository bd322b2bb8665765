import type { BlockRecord } from '../storage/records.ts';
import type { Store } from '../storage/store.ts';
import type { Clock } from './clock.ts';
import type { Directory } from './directory.ts';
import { emailKey } from './email-address.ts';

/**
 * Blocked recipients per team: the team's configured list, plus recipients blocked since
 * (a bounce or complaint, api-contract.md §6, or by hand through the sandbox API).
 */
export class Blocks {
  constructor(private readonly store: Store, private readonly directory: Directory, private readonly clock: Clock) {}

  isBlocked(team: string, email: string): boolean {
    const key = emailKey(email);
    const configured = this.directory.team(team)?.blockedRecipients ?? [];
    if (configured.some((address) => emailKey(address) === key)) return true;
    return this.store.blocks.blocks.some((b) => b.team === team && emailKey(b.email) === key);
  }

  block(team: string, email: string, reason: BlockRecord['reason']): void {
    if (this.isBlocked(team, email)) return;
    this.store.blocks.blocks.push({ team, email, reason, createdAt: this.clock.now().toISOString() });
    this.store.touchBlocks();
  }
}
