import type { BlockRecord } from '../storage/records.ts';
import type { Store } from '../storage/store.ts';
import type { Clock } from './clock.ts';
import type { Directory } from './directory.ts';
import { emailKey } from './email-address.ts';

/**
 * Blocked recipients per team: the team's configured list, plus recipients blocked since
 * (a bounce or complaint, api-contract.md §6).
 */
export class Blocks {
  private readonly keys = new Set<string>();

  constructor(private readonly store: Store, directory: Directory, private readonly clock: Clock) {
    for (const team of directory.config.teams) for (const email of team.blockedRecipients) this.keys.add(key(team.id, email));
    for (const block of store.blocks.blocks) this.keys.add(key(block.team, block.email));
  }

  isBlocked(team: string, email: string): boolean {
    return this.keys.has(key(team, email));
  }

  block(team: string, email: string, reason: BlockRecord['reason']): void {
    if (this.isBlocked(team, email)) return;
    this.keys.add(key(team, email));
    this.store.blocks.blocks.push({ team, email, reason, createdAt: this.clock.now().toISOString() });
    this.store.touchBlocks();
  }
}

function key(team: string, email: string): string {
  return `${team}\u0000${emailKey(email)}`;
}
