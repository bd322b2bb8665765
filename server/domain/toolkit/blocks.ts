import type { BlockRecord } from '../entities.ts';
import type { BlocksRepository, Store } from '../../storage/store.ts';
import type { Clock } from '../time/clock.ts';
import type { Directory } from '../directory/directory.ts';
import { addressTag } from '../../storage/namespace.ts';
import { emailKey } from '../email-address.ts';

/** Why a recipient is blocked: `config` for the team's list in the configuration file. */
export type BlockReason = BlockRecord['reason'] | 'config';

/** A blocked recipient as the sandbox API lists it; configured ones have no time. */
export interface BlockEntry {
  team: string;
  email: string;
  reason: BlockReason;
  createdAt: string | null;
}

/**
 * Blocked recipients per team: the team's configured list, plus recipients blocked since
 * (a bounce or complaint, docs/api-contract.md §6, or through the sandbox API). A configured block
 * can be lifted through the sandbox API; it stays lifted (across restarts) until a reset that
 * restores the fixtures.
 */
export class Blocks {
  /** Why each (team, address) in force is blocked. */
  private readonly keys = new Map<string, BlockReason>();
  private readonly configured = new Map<string, { team: string; email: string }>();
  private readonly stored: BlocksRepository;

  constructor(
    private readonly store: Store,
    directory: Directory,
    private readonly clock: Clock,
  ) {
    this.stored = store.blocked;
    for (const team of directory.config.teams) for (const email of team.blockedRecipients) this.configured.set(key(team.id, email), { team: team.id, email });
    this.rebuild();
  }

  /** Why the address is blocked for the team, or null when it is not. */
  reason(team: string, email: string): BlockReason | null {
    return this.keys.get(key(team, email)) ?? null;
  }

  isBlocked(team: string, email: string): boolean {
    return this.keys.has(key(team, email));
  }

  /** Blocks a recipient, queued for the write of the caller's unit of work. */
  block(team: string, email: string, reason: BlockRecord['reason']): void {
    if (this.isBlocked(team, email)) return;
    this.keys.set(key(team, email), reason);
    this.stored.add({ team, email, reason, createdAt: this.clock.now().toISOString() });
  }

  /** Blocks a recipient through the sandbox API, on disk when it resolves; false if it already was. */
  async add(team: string, email: string): Promise<boolean> {
    const created = !this.isBlocked(team, email);
    await this.store.update(() => this.block(team, email, 'manual'), { undo: this.undoer() });
    return created;
  }

  /** Lifts a block through the sandbox API, on disk when it resolves; false if it was not blocked. */
  async remove(team: string, email: string): Promise<boolean> {
    return this.store.update(() => this.unblock(team, email), { undo: this.undoer() });
  }

  /** Lifts a block (stored or configured); false when the recipient was not blocked. */
  private unblock(team: string, email: string): boolean {
    const k = key(team, email);
    if (!this.keys.has(k)) return false;
    const configured = this.configured.get(k);
    this.stored.replace({
      blocks: this.stored.blocks.filter((b) => key(b.team, b.email) !== k),
      lifted: configured ? [...this.stored.lifted, configured] : [...this.stored.lifted],
    });
    this.keys.delete(k);
    return true;
  }

  /** Puts the blocks back as they are now (a unit of work's undo: its write was refused). */
  private undoer(): () => void {
    const before = { blocks: [...this.stored.blocks], lifted: [...this.stored.lifted] };
    return () => {
      this.stored.replace(before);
      this.rebuild();
    };
  }

  /**
   * Removes the blocks added since start-up (bounces, complaints, the sandbox API) of one
   * namespace's addresses, of one team or all; configured blocks stay as they are. Returns how
   * many were removed.
   */
  resetNamespace(team: string | undefined, namespace: string): number {
    const kept = this.stored.blocks.filter((b) => (team !== undefined && b.team !== team) || addressTag(b.email) !== namespace);
    const removed = this.stored.blocks.length - kept.length;
    if (removed === 0) return 0;
    this.stored.replace({ blocks: kept, lifted: [...this.stored.lifted] });
    this.rebuild();
    return removed;
  }

  /** Every block in force, configured ones first. */
  list(team?: string): BlockEntry[] {
    const lifted = new Set(this.stored.lifted.map((l) => key(l.team, l.email)));
    const configured: BlockEntry[] = [...this.configured]
      .filter(([k, c]) => !lifted.has(k) && (team === undefined || c.team === team))
      .map(([, c]) => ({ team: c.team, email: c.email, reason: 'config', createdAt: null }));
    const stored = this.stored.blocks.filter((b) => team === undefined || b.team === team);
    return [...configured, ...stored.map((b) => ({ ...b }))];
  }

  /**
   * Removes the blocks added since start-up (bounces, complaints, the sandbox API) for one
   * team or all; with `restoreConfigured` lifted configured blocks come back, without it the
   * configured ones are lifted too. Returns how many blocks were removed.
   */
  reset(team: string | undefined, restoreConfigured: boolean): number {
    const inScope = (t: string) => team === undefined || t === team;
    const kept = this.stored.blocks.filter((b) => !inScope(b.team));
    let removed = this.stored.blocks.length - kept.length;
    const lifted = this.stored.lifted.filter((l) => !inScope(l.team));
    if (!restoreConfigured) {
      for (const [k, c] of this.configured) {
        if (!inScope(c.team)) continue;
        lifted.push(c);
        if (this.keys.has(k)) removed++;
      }
    }
    this.stored.replace({ blocks: kept, lifted });
    this.rebuild();
    return removed;
  }

  private rebuild(): void {
    this.keys.clear();
    const lifted = new Set(this.stored.lifted.map((l) => key(l.team, l.email)));
    for (const k of this.configured.keys()) if (!lifted.has(k)) this.keys.set(k, 'config');
    for (const block of this.stored.blocks) this.keys.set(key(block.team, block.email), block.reason);
  }
}

function key(team: string, email: string): string {
  return `${team}\u0000${emailKey(email)}`;
}
