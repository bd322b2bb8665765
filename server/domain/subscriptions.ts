import type { SubscriptionRecord } from '../storage/records.ts';
import type { Store } from '../storage/store.ts';
import type { Clock } from './clock.ts';
import type { Directory } from './directory.ts';
import { emailKey } from './email-address.ts';
import { AlreadySubscribed, FlowHasNoSteps, FlowNotFound, NotFound, NotSubscribed } from './errors.ts';
import type { Events } from './events.ts';
import { normaliseFlags } from './flags.ts';
import type { Recipients } from './recipients.ts';

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

/**
 * Flow subscriptions (api-contract.md §4). A subscription starts at the flow's first step, due
 * now; the flow engine advances `currentStepOrder` and `nextSendDate` from there.
 */
export class Subscriptions {
  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly directory: Directory,
    private readonly recipients: Recipients,
    private readonly events: Events,
  ) {}

  async subscribe(team: string, input: SubscribeInput): Promise<{ record: SubscriptionRecord; flowName: string }> {
    const flow = this.directory.flow(team, input.trigger);
    if (!flow) throw new FlowNotFound(input.trigger);
    if (flow.steps.length === 0) throw new FlowHasNoSteps(flow.name);
    if (this.active(team, flow.trigger, input.email)) throw new AlreadySubscribed(input.email, flow.name);
    this.recipients.apply(team, input.email, {
      firstName: input.firstName,
      lastName: input.lastName,
      flags: normaliseFlags(input.flags),
    });
    const now = this.clock.now().toISOString();
    const seq = ++this.store.meta.counters.subscription;
    this.store.touchMeta();
    const record: SubscriptionRecord = {
      seq,
      team,
      flowTrigger: flow.trigger,
      flowName: flow.name,
      email: input.email.trim(),
      status: 'active',
      currentStepOrder: 1,
      nextSendDate: now,
      createdAt: now,
      updatedAt: now,
    };
    this.store.subscriptions.insert(record);
    await this.store.flush();
    this.events.emit('subscription.changed', record);
    return { record, flowName: flow.name };
  }

  async unsubscribe(team: string, trigger: string, email: string): Promise<{ record: SubscriptionRecord; flowName: string }> {
    const flow = this.directory.flow(team, trigger);
    if (!flow) throw new FlowNotFound(trigger);
    const record = this.active(team, flow.trigger, email);
    if (!record) throw new NotSubscribed(email, flow.name);
    record.status = 'cancelled';
    record.nextSendDate = null;
    record.updatedAt = this.clock.now().toISOString();
    this.store.subscriptions.touch(record);
    await this.store.flush();
    this.events.emit('subscription.changed', record);
    return { record, flowName: flow.name };
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

  /** Removes the recipient's subscriptions to the flow; NotFound when there are none. */
  async remove(team: string, trigger: string, email: string): Promise<number> {
    const doomed = this.list(team, { email, trigger });
    if (doomed.length === 0) throw new NotFound();
    for (const record of doomed) {
      this.store.subscriptions.remove(record.seq);
      this.events.emit('subscription.removed', record);
    }
    await this.store.flush();
    return doomed.length;
  }

  /** Removes every subscription, or one team's (a reset), announcing each; returns how many. */
  async removeAll(team?: string): Promise<number> {
    const doomed = this.store.subscriptions.all().filter((s) => team === undefined || s.team === team);
    for (const record of doomed) {
      this.store.subscriptions.remove(record.seq);
      this.events.emit('subscription.removed', record);
    }
    await this.store.flush();
    return doomed.length;
  }

  private active(team: string, trigger: string, email: string): SubscriptionRecord | undefined {
    return this.list(team, { email, trigger }).find((s) => s.status === 'active');
  }
}
