import type { RecipientRecord } from '../entities.ts';
import type { RecipientStore } from '../../storage/indexes/recipient-store.ts';
import type { Store } from '../../storage/store.ts';
import type { Clock } from '../time/clock.ts';
import { NotFound } from '../errors.ts';
import { addFlags } from './flags.ts';
import { encodeId } from '../ids.ts';
import type { PageOf } from '../paging.ts';
import type { Scheduler } from '../time/scheduler.ts';

export interface RecipientChange {
  firstName?: string;
  lastName?: string;
  flags?: readonly string[];
  sent?: boolean;
}

export interface RecipientFilter {
  email?: string;
  flag?: string;
}

/** The sandbox's view across teams: a team, and words found in the address, names or flags. */
export interface RecipientSearch {
  team?: string;
  q?: string;
}

/**
 * Recipients per team, keyed by address without regard to case (docs/api-contract.md §5). The
 * store keeps them compact (storage/recipient-store.ts): a record is read when it is looked up,
 * and changed in place then touched, all in one synchronous step.
 */
export class Recipients {
  private readonly recipients: RecipientStore;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly scheduler: Scheduler,
    private readonly onChange: (r: RecipientRecord) => void,
  ) {
    this.recipients = store.recipients;
  }

  find(team: string, email: string): RecipientRecord | undefined {
    return this.recipients.find(team, email);
  }

  /**
   * Creates or updates, and resolves once it is on disk and any flow wait the new flags ended
   * has run its next steps (so the caller's answer already reflects them).
   */
  async upsert(team: string, email: string, change: RecipientChange): Promise<{ record: RecipientRecord; created: boolean }> {
    const result = await this.store.update(() => this.apply(team, email, change));
    if (change.flags && change.flags.length > 0) await this.scheduler.settle();
    return result;
  }

  /**
   * Creates or updates in memory, to be flushed with the caller's write: given names
   * overwrite, omitted ones are kept, flags are only added (docs/api-contract.md §5).
   */
  apply(team: string, email: string, change: RecipientChange): { record: RecipientRecord; created: boolean } {
    return this.change(team, email, change).result;
  }

  /**
   * `apply`, and a function that puts the recipient back as it was (removed again if this made
   * it), for a caller whose write was refused: a send answered 507 keeps nothing.
   */
  applyUndoably(team: string, email: string, change: RecipientChange): () => void {
    const before = this.find(team, email);
    const was = before && {
      firstName: before.firstName,
      lastName: before.lastName,
      flags: [...before.flags],
      hasBeenSentEmail: before.hasBeenSentEmail,
      updatedAt: before.updatedAt,
    };
    const { result, stamp } = this.change(team, email, change);
    const { seq } = result.record;
    return () => {
      // Changed again since (another send, the API), or removed: that stands.
      if (this.recipients.lastChange(seq) !== stamp) return;
      if (result.created) {
        this.recipients.discard(seq);
        return;
      }
      // Taken again by its sequence number: the object changed may have been read anew since.
      const record = this.recipients.get(seq);
      if (!record) return;
      Object.assign(record, was);
      this.recipients.touch(record);
    };
  }

  async clearFlags(team: string, email: string, flags: readonly string[]): Promise<RecipientRecord> {
    return this.store.update(() => {
      const record = this.removeFlags(team, email, flags);
      if (!record) throw new NotFound();
      return record;
    });
  }

  /** Removes flags in memory, to be flushed with the caller's write; undefined if no such recipient. */
  removeFlags(team: string, email: string, flags: readonly string[]): RecipientRecord | undefined {
    const record = this.find(team, email);
    if (!record) return undefined;
    record.flags = record.flags.filter((flag) => !flags.includes(flag));
    record.updatedAt = this.clock.now().toISOString();
    this.recipients.touch(record);
    this.onChange(record);
    return record;
  }

  /** Removes every recipient, or one team's, or those of one namespace's addresses (a reset); returns how many. */
  removeAll(team?: string, namespace?: string): number {
    return this.recipients.removeWhere({ team, namespace });
  }

  /**
   * Removes the recipients nothing has touched (a send, a flag, a name) since `before`, except
   * those `keep` names (an active flow subscription): retention of captures takes the
   * recipients they left behind with it, so a long-running sandbox stays bounded.
   */
  async prune(before: string, keep: readonly { team: string; email: string }[]): Promise<number> {
    const removed = this.recipients.removeUnchangedSince(Date.parse(before), keep);
    if (removed > 0) await this.store.commit();
    return removed;
  }

  /** A page of every team's recipients for the sandbox's recipients view, newest first: a team, and words found in the address, names or flags. */
  search(search: RecipientSearch, offset: number, limit: number): PageOf<RecipientRecord> {
    const words = (search.q ?? '').toLowerCase().split(/\s+/).filter(Boolean);
    return this.recipients.list({ team: search.team, words }, offset, limit);
  }

  /** A page of the team's recipients, newest first. */
  page(team: string, filter: RecipientFilter, offset: number, limit: number): PageOf<RecipientRecord> {
    return this.recipients.list({ team, email: filter.email, flag: filter.flag }, offset, limit);
  }

  /** The change made in memory (the record read, changed in place, indexed again) and its stamp. */
  private change(team: string, email: string, change: RecipientChange): { result: { record: RecipientRecord; created: boolean }; stamp: number } {
    const now = this.clock.now().toISOString();
    let record = this.find(team, email);
    const created = !record;
    if (!record) {
      const seq = ++this.store.meta.counters.recipient;
      this.store.touchMeta();
      record = {
        seq,
        sqid: encodeId(seq),
        team,
        email: email.trim(),
        firstName: '',
        lastName: '',
        flags: [],
        hasBeenSentEmail: false,
        createdAt: now,
        updatedAt: now,
      };
    }
    if (change.firstName !== undefined) record.firstName = change.firstName;
    if (change.lastName !== undefined) record.lastName = change.lastName;
    if (change.flags) addFlags(record.flags, change.flags);
    if (change.sent) record.hasBeenSentEmail = true;
    record.updatedAt = now;
    const stamp = created ? this.recipients.insert(record) : this.recipients.touch(record);
    this.onChange(record);
    return { result: { record, created }, stamp };
  }
}
