import type { Collection } from '../../storage/collection.ts';
import type { RecipientRecord } from '../entities.ts';
import type { Store } from '../../storage/store.ts';
import type { Clock } from '../time/clock.ts';
import { addressTag } from '../../storage/namespace.ts';
import { emailKey } from '../email-address.ts';
import { NotFound } from '../errors.ts';
import { addFlags } from './flags.ts';
import { encodeId } from '../ids.ts';
import { pageNewestFirst, type PageOf } from '../paging.ts';
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

/** Recipients per team, keyed by address without regard to case (docs/api-contract.md §5). */
export class Recipients {
  private readonly index = new Map<string, RecipientRecord>();
  /** How many times each recipient was changed in this process: an undo applies only to the latest change. */
  private readonly changes = new WeakMap<RecipientRecord, number>();
  private readonly collection: Collection<RecipientRecord>;

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly scheduler: Scheduler,
    private readonly onChange: (r: RecipientRecord) => void,
  ) {
    this.collection = store.recipients;
    for (const record of this.collection.all()) this.index.set(key(record.team, record.email), record);
  }

  find(team: string, email: string): RecipientRecord | undefined {
    return this.index.get(key(team, email));
  }

  /**
   * Creates or updates, and resolves once it is on disk and any flow wait the new flags ended
   * has run its next steps (so the caller's answer already reflects them).
   */
  async upsert(team: string, email: string, change: RecipientChange): Promise<{ record: RecipientRecord; created: boolean }> {
    const result = this.apply(team, email, change);
    await this.store.flush();
    if (change.flags && change.flags.length > 0) await this.scheduler.settle();
    return result;
  }

  /**
   * Creates or updates in memory, to be flushed with the caller's write: given names
   * overwrite, omitted ones are kept, flags are only added (docs/api-contract.md §5).
   */
  apply(team: string, email: string, change: RecipientChange): { record: RecipientRecord; created: boolean } {
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
      this.collection.insert(record);
      this.index.set(key(team, email), record);
    }
    if (change.firstName !== undefined) record.firstName = change.firstName;
    if (change.lastName !== undefined) record.lastName = change.lastName;
    if (change.flags) addFlags(record.flags, change.flags);
    if (change.sent) record.hasBeenSentEmail = true;
    record.updatedAt = now;
    if (!created) this.collection.touch(record);
    this.changes.set(record, (this.changes.get(record) ?? 0) + 1);
    this.onChange(record);
    return { record, created };
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
    const { record, created } = this.apply(team, email, change);
    const mine = this.changes.get(record);
    return () => {
      // Changed again since (another send, the API): that change stands.
      if (this.changes.get(record) !== mine || this.collection.get(record.seq) !== record) return;
      if (created) {
        this.collection.discard(record.seq);
        this.index.delete(key(team, email));
        return;
      }
      Object.assign(record, was);
      this.collection.touch(record);
    };
  }

  async clearFlags(team: string, email: string, flags: readonly string[]): Promise<RecipientRecord> {
    const record = this.removeFlags(team, email, flags);
    if (!record) throw new NotFound();
    await this.store.flush();
    return record;
  }

  /** Removes flags in memory, to be flushed with the caller's write; undefined if no such recipient. */
  removeFlags(team: string, email: string, flags: readonly string[]): RecipientRecord | undefined {
    const record = this.find(team, email);
    if (!record) return undefined;
    record.flags = record.flags.filter((flag) => !flags.includes(flag));
    record.updatedAt = this.clock.now().toISOString();
    this.collection.touch(record);
    this.changes.set(record, (this.changes.get(record) ?? 0) + 1);
    this.onChange(record);
    return record;
  }

  /** Removes every recipient, or one team's, or those of one namespace's addresses (a reset); returns them. */
  removeAll(team?: string, namespace?: string): RecipientRecord[] {
    const doomed = this.collection
      .all()
      .filter((r) => (team === undefined || r.team === team) && (namespace === undefined || addressTag(r.email) === namespace));
    for (const record of doomed) {
      this.collection.remove(record.seq);
      this.index.delete(key(record.team, record.email));
    }
    return doomed;
  }

  /**
   * Removes the recipients nothing has touched (a send, a flag, a name) since `before`, except
   * those `keep` names (an active flow subscription): retention of captures takes the
   * recipients they left behind with it, so a long-running sandbox stays bounded.
   */
  async prune(before: string, keep: (record: RecipientRecord) => boolean): Promise<number> {
    const doomed = this.collection.all().filter((r) => r.updatedAt < before && !keep(r));
    for (const record of doomed) {
      this.collection.remove(record.seq);
      this.index.delete(key(record.team, record.email));
    }
    if (doomed.length > 0) await this.store.flush();
    return doomed.length;
  }

  /** A page of every team's recipients for the sandbox API (see searchRecipients). */
  search(search: RecipientSearch, offset: number, limit: number): PageOf<RecipientRecord> {
    return searchRecipients(this.collection.all(), search, offset, limit);
  }

  /** A page of the team's recipients, newest first. */
  page(team: string, filter: RecipientFilter, offset: number, limit: number): PageOf<RecipientRecord> {
    const wanted = filter.email === undefined ? undefined : emailKey(filter.email);
    const match = (r: RecipientRecord) =>
      r.team === team && (wanted === undefined || emailKey(r.email) === wanted) && (filter.flag === undefined || r.flags.includes(filter.flag));
    return pageNewestFirst(this.collection.all(), match, offset, limit);
  }
}

/** A page of every team's recipients, newest first, for the sandbox's recipients view. */
function searchRecipients(all: readonly RecipientRecord[], search: RecipientSearch, offset: number, limit: number): PageOf<RecipientRecord> {
  const words = (search.q ?? '').toLowerCase().split(/\s+/).filter(Boolean);
  const match = (r: RecipientRecord) => {
    if (search.team !== undefined && r.team !== search.team) return false;
    if (words.length === 0) return true;
    const haystack = [r.email, r.firstName, r.lastName, ...r.flags].join('\n').toLowerCase();
    return words.every((w) => haystack.includes(w));
  };
  return pageNewestFirst(all, match, offset, limit);
}

function key(team: string, email: string): string {
  return `${team}\u0000${emailKey(email)}`;
}
