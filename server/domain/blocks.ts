import type { BlockRecord } from '../storage/records.ts';
import type { Store } from '../storage/store.ts';

export type BlockReason = BlockRecord['reason'] | 'configured';
import type { Clock } from './clock.ts';
import type { Directory } from './directory.ts';
import { emailKey } from './email-address.ts';

/**
 * Blocked recipients per team: the team's configured list, plus recipients blocked since
 * (a bounce or complaint, api-contract.md §6).
 */
export class Blocks {
  /** Why each (team, address) is blocked: `configured` for the team's list in the configuration. */
  private readonly keys = new Map<string, BlockReason>();

  constructor(private readonly store: Store, directory: Directory, private readonly clock: Clock) {
    for (const team of directory.config.teams) for (const email of team.blockedRecipients) this.keys.set(key(team.id, email), 'configured');
    for (const block of store.blocks.blocks) this.keys.set(key(block.team, block.email), block.reason);
  }

  /** Why the address is blocked for the team, or null when it is not. */
  reason(team: string, email: string): BlockReason | null {
    return this.keys.get(key(team, email)) ?? null;
  }

  isBlocked(team: string, email: string): boolean {
    return this.keys.has(key(team, email));
  }

  block(team: string, email: string, reason: BlockRecord['reason']): void {
    if (this.isBlocked(team, email)) return;
    this.keys.set(key(team, email), reason);
    this.store.blocks.blocks.push({ team, email, reason, createdAt: this.clock.now().toISOString() });
    this.store.touchBlocks();
  }
}

function key(team: string, email: string): string {
  return `${team}\u0000${emailKey(email)}`;
}
