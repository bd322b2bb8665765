import type { Store } from '../storage/store.ts';
import type { Blocks } from './toolkit/blocks.ts';
import type { Directory } from './directory/directory.ts';
import type { Events } from './events.ts';
import type { Faults } from './toolkit/faults.ts';
import type { Messages } from './messages/messages.ts';
import type { Recipients } from './directory/recipients.ts';
import type { RequestLog } from './toolkit/request-log.ts';
import type { Subscriptions } from './flows/subscriptions.ts';

/** What a reset covers: one team, one namespace, or everything, and whether the configured fixtures return. */
export interface ResetScope {
  /** Undefined: everything, including captures that belong to no team (anonymous SMTP). */
  team?: string;
  /**
   * Only this namespace's captures, and the recipients, subscriptions and added blocks of its
   * addresses; every other part (counters, request log, faults, clock) is left alone.
   */
  namespace?: string;
  restoreFixtures: boolean;
  /** The team's sender ids (every sender when no team is given). */
  senders: ReadonlySet<string>;
}

/**
 * One resettable part of the sandbox, returning how many things it removed: either a command of
 * its own (`reset`, its own unit of work: deleting captures writes their tombstones before it
 * takes them out of memory; the request log has its own group commit), or a synchronous
 * `change` made inside the reset's unit of work, which the neighbouring changes share.
 */
export type ResettablePart = { name: string } & (
  | { reset(scope: ResetScope): Promise<number> | number; change?: undefined }
  | { change(scope: ResetScope): number; reset?: undefined }
);

export type ResetReport = Record<string, number>;

/**
 * Reset as a list of parts, each going through its own domain methods (which emit their
 * events), run in order. Other parts of the sandbox (the flow engine, the clock) join with
 * `register`, so a reset clears them too.
 */
export class Reset {
  private readonly parts: ResettablePart[];

  constructor(
    parts: ResettablePart[],
    private readonly directory: Directory,
    private readonly store: Store,
    private readonly events: Events,
  ) {
    this.parts = [...parts];
  }

  register(part: ResettablePart, options: { first?: boolean } = {}): void {
    if (options.first) this.parts.unshift(part);
    else this.parts.push(part);
  }

  get partNames(): string[] {
    return this.parts.map((p) => p.name);
  }

  async run(options: { team?: string; namespace?: string; restoreFixtures: boolean }): Promise<ResetReport> {
    const teams = this.directory.config.teams.filter((t) => options.team === undefined || t.id === options.team);
    const scope: ResetScope = { ...options, senders: new Set(teams.flatMap((t) => t.senders.map((s) => s.id))) };
    const report: ResetReport = {};
    for (let at = 0; at < this.parts.length; ) {
      const part = this.parts[at]!;
      if (part.reset) {
        report[part.name] = await part.reset(scope);
        at++;
        continue;
      }
      // The changes next to each other are one unit of work, on disk before the next command.
      const changes: ResettablePart[] = [];
      for (; this.parts[at]?.change; at++) changes.push(this.parts[at]!);
      await this.store.update(() => {
        for (const change of changes) report[change.name] = change.change!(scope);
      });
    }
    this.events.emit('sandbox.reset', { team: options.team ?? null, namespace: options.namespace ?? null, removed: report });
    return report;
  }
}

export interface ResetDeps {
  store: Store;
  messages: Messages;
  recipients: Recipients;
  subscriptions: Subscriptions;
  blocks: Blocks;
  requestLog: RequestLog;
  faults: Faults;
}

/** The sandbox's own parts, in the order they are cleared. */
export function standardParts(deps: ResetDeps): ResettablePart[] {
  const { store, messages, recipients, subscriptions, blocks, requestLog, faults } = deps;
  return [
    { name: 'subscriptions', reset: (scope) => subscriptions.removeAll(scope.team, scope.namespace) },
    {
      name: 'messages',
      reset: async (scope) => (everything(scope) ? messages.clear() : (await messages.remove(messages.within(scope))).length),
    },
    { name: 'recipients', change: (scope) => recipients.removeAll(scope.team, scope.namespace) },
    {
      name: 'blocks',
      change: (scope) => (scope.namespace === undefined ? blocks.reset(scope.team, scope.restoreFixtures) : blocks.resetNamespace(scope.team, scope.namespace)),
    },
    {
      name: 'daily_counters',
      change: (scope) => (scope.namespace !== undefined ? 0 : store.daily.remove(scope.team === undefined ? undefined : scope.senders)),
    },
    {
      name: 'requests',
      reset: (scope) => (scope.namespace !== undefined ? 0 : requestLog.clear(scope.team === undefined ? undefined : scope.senders)),
    },
    {
      name: 'faults',
      reset: (scope) =>
        scope.namespace !== undefined
          ? 0
          : faults.reset({ senders: scope.team === undefined ? undefined : scope.senders, restoreConfigured: scope.restoreFixtures }),
    },
  ];
}

/** A reset of the whole sandbox (neither a team's nor a namespace's). */
export function everything(scope: ResetScope): boolean {
  return scope.team === undefined && scope.namespace === undefined;
}
