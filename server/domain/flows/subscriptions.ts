import type { SubscriptionRecord } from '../entities.ts';
import type { Store } from '../../storage/store.ts';
import type { Clock } from '../time/clock.ts';
import type { Directory } from '../directory/directory.ts';
import { addressTag } from '../../storage/namespace.ts';
import { emailKey } from '../email-address.ts';
import { AlreadySubscribed, FlowHasNoSteps, FlowNotFound, NotFound, NotSubscribed } from '../errors.ts';
import type { Events } from '../events.ts';
import { normaliseFlags } from '../directory/flags.ts';
import type { FlowEngine } from './flow-engine.ts';
import { timeline, type TimelineStep } from './flow-steps.ts';
import { pageNewestFirst, type PageOf } from '../paging.ts';
import type { Recipients } from '../directory/recipients.ts';

export interface SubscribeInput {
  trigger: string;
  email: string;
  firstName?: string;
  lastName?: string;
  flags?: string[];
}

export interface SubscriptionFilter {
  email?: string;
  trigger?: string;
}

/** The sandbox API's filter over every team's subscriptions. */
export interface SandboxSubscriptionFilter {
  team?: string;
  email?: string;
  status?: SubscriptionRecord['status'];
}

/**
 * Flow subscriptions (docs/api-contract.md §4). A subscription starts at the flow's first step, due
 * now; the flow engine runs it from there (its first steps before `subscribe` resolves).
 */
export class Subscriptions {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly directory: Directory,
    private readonly recipients: Recipients,
    private readonly events: Events,
    private readonly engine: FlowEngine,
  ) {}

  /** The recipients in a flow now (with an active subscription), by team and address. */
  inFlow(): { team: string; email: string }[] {
    return this.store.subscriptions
      .all()
      .filter((s) => s.status === 'active')
      .map((s) => ({ team: s.team, email: s.email }));
  }

  async subscribe(team: string, input: SubscribeInput): Promise<{ record: SubscriptionRecord; flowName: string }> {
    const flow = this.directory.flow(team, input.trigger);
    if (!flow) throw new FlowNotFound(input.trigger);
    if (flow.steps.length === 0) throw new FlowHasNoSteps(flow.name);
    if (this.active(team, flow.trigger, input.email)) throw new AlreadySubscribed(input.email, flow.name);
    // One unit of work: the recipient made or changed, the subscription stored; a refused write
    // leaves neither (the subscription's id is not handed out again).
    const undo: (() => void)[] = [];
    const record = await this.store.update(
      () => {
        undo.push(
          this.recipients.applyUndoably(team, input.email, { firstName: input.firstName, lastName: input.lastName, flags: normaliseFlags(input.flags) }).undo,
        );
        const now = this.clock.now().toISOString();
        const created: SubscriptionRecord = {
          seq: this.store.ids.next('subscription'),
          team,
          flowTrigger: flow.trigger,
          flowName: flow.name,
          email: input.email.trim(),
          status: 'active',
          currentStepOrder: 1,
          nextSendDate: now,
          createdAt: now,
          updatedAt: now,
          waiting: false,
          waitFlag: null,
          run: 0,
          doneSteps: [],
        };
        this.store.subscriptions.insert(created);
        undo.push(() => this.store.subscriptions.discard(created.seq));
        return created;
      },
      {
        undo: () => {
          for (const step of undo.reverse()) step();
        },
      },
    );
    this.events.emit('subscription.changed', record);
    await this.engine.start(record);
    return { record, flowName: flow.name };
  }

  /** Cancels the active subscription between two steps: none of its steps runs again. */
  unsubscribe(team: string, trigger: string, email: string): Promise<{ record: SubscriptionRecord; flowName: string }> {
    return this.engine.between(async () => {
      const flow = this.directory.flow(team, trigger);
      if (!flow) throw new FlowNotFound(trigger);
      const record = this.active(team, flow.trigger, email);
      if (!record) throw new NotSubscribed(email, flow.name);
      record.status = 'cancelled';
      record.nextSendDate = null;
      record.waiting = false;
      record.updatedAt = this.clock.now().toISOString();
      this.engine.stop(record);
      await this.store.update(() => this.store.subscriptions.touch(record));
      this.events.emit('subscription.changed', record);
      return { record, flowName: flow.name };
    });
  }

  /** Newest first. */
  list(team: string, filter: SubscriptionFilter): SubscriptionRecord[] {
    const wanted = filter.email === undefined ? undefined : emailKey(filter.email);
    const all = this.store.subscriptions.all();
    const out: SubscriptionRecord[] = [];
    for (let i = all.length - 1; i >= 0; i--) {
      const s = all[i]!;
      if (s.team !== team) continue;
      if (wanted !== undefined && emailKey(s.email) !== wanted) continue;
      if (filter.trigger !== undefined && s.flowTrigger !== filter.trigger) continue;
      out.push(s);
    }
    return out;
  }

  /** Removes the recipient's subscriptions to the flow (between two steps); NotFound when there are none. */
  remove(team: string, trigger: string, email: string): Promise<number> {
    return this.engine.between(async () => {
      const doomed = this.list(team, { email, trigger });
      if (doomed.length === 0) throw new NotFound();
      await this.store.update(() => {
        for (const record of doomed) {
          this.engine.stop(record);
          this.store.subscriptions.remove(record.seq);
          this.events.emit('subscription.removed', record);
        }
      });
      return doomed.length;
    });
  }

  /** A page of every team's subscriptions, newest first, for the sandbox API. */
  page(filter: SandboxSubscriptionFilter, offset: number, limit: number): PageOf<SubscriptionRecord> {
    const wanted = filter.email === undefined ? undefined : emailKey(filter.email);
    const match = (s: SubscriptionRecord) =>
      (filter.team === undefined || s.team === filter.team) &&
      (wanted === undefined || emailKey(s.email) === wanted) &&
      (filter.status === undefined || s.status === filter.status);
    return pageNewestFirst(this.store.subscriptions.all(), match, offset, limit);
  }

  /** The subscription's steps with what has run; empty if its flow is no longer configured. */
  timeline(record: SubscriptionRecord): TimelineStep[] {
    const flow = this.directory.flow(record.team, record.flowTrigger);
    return flow ? timeline(flow, record) : [];
  }

  /**
   * Removes every subscription, or one team's, or those of one namespace's addresses (the sandbox
   * reset), between two steps, announcing each; the engine then reads what is left, so nothing
   * removed ever runs. Returns how many.
   */
  removeAll(team?: string, namespace?: string): Promise<number> {
    return this.engine.between(async () => {
      const doomed = this.store.subscriptions
        .all()
        .filter((s) => (team === undefined || s.team === team) && (namespace === undefined || addressTag(s.email) === namespace));
      await this.store.update(() => {
        for (const record of doomed) {
          this.store.subscriptions.remove(record.seq);
          this.events.emit('subscription.removed', record);
        }
        this.engine.reload();
      });
      return doomed.length;
    });
  }

  private active(team: string, trigger: string, email: string): SubscriptionRecord | undefined {
    return this.list(team, { email, trigger }).find((s) => s.status === 'active');
  }
}
