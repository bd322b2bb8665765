import type { FlowConfig, FlowStepConfig } from '../directory/sandbox-config.ts';
import type { RecipientRecord, SubscriptionRecord } from '../entities.ts';
import type { Store } from '../../storage/store.ts';
import type { Blocks } from '../toolkit/blocks.ts';
import type { Clock } from '../time/clock.ts';
import type { Caller, Directory } from '../directory/directory.ts';
import { emailKey } from '../email-address.ts';
import type { Events } from '../events.ts';
import { parseDuration } from '../time/duration.ts';
import { renderTemplate, stepOrder } from './flow-steps.ts';
import type { Messages } from '../messages/messages.ts';
import type { Recipients } from '../directory/recipients.ts';
import type { Scheduler } from '../time/scheduler.ts';

export interface FlowEngineDeps {
  store: Store;
  clock: Clock;
  directory: Directory;
  recipients: Recipients;
  messages: Messages;
  blocks: Blocks;
  scheduler: Scheduler;
  events: Events;
  log: (message: string, error?: unknown) => void;
}

/** A step that failed (a disk error) is tried again this long after, on the sandbox clock. */
const RETRY_MS = 60_000;

/**
 * Runs flow subscriptions (docs/api-contract.md §4). A subscription rests only at a wait step (or
 * completes); every other step runs as soon as it is reached. Its schedule lives in the
 * subscription record itself (`currentStepOrder`, `nextSendDate`, `waiting`, `waitFlag`), so
 * a restart picks it up from the store; the scheduler holds one due entry per subscription.
 *
 * Exactly once across a crash: each email a send step captures carries the subscription, its
 * step count (`run`) and the step. A crash can leave the stored subscription behind its last
 * captures; on start the engine replays it from there, and a send step whose capture already
 * exists advances without sending again. Other steps are idempotent (setting a flag twice is
 * setting it once), and a step never runs before the subscription's stored state reached it,
 * so nothing is skipped.
 */
export class FlowEngine {
  /** Team + recipient → subscriptions waiting for a flag of that recipient. */
  private readonly watching = new Map<string, Set<number>>();
  /** Captures found at start that their subscription had not yet recorded (a crash between the two writes). */
  private readonly captured = new Set<string>();
  private readonly missingFlows = new Set<string>();

  constructor(private readonly deps: FlowEngineDeps) {
    deps.scheduler.handle('flow', (seq) => this.run(seq));
    this.load();
  }

  /**
   * Runs `op` with no flow step in progress (and none starting until it is done), so an
   * unsubscribe or delete takes effect between steps, never inside one.
   */
  between<T>(op: () => Promise<T>): Promise<T> {
    return this.deps.scheduler.exclusive(op);
  }

  /** A new subscription: runs its first steps before the caller answers. */
  async start(sub: SubscriptionRecord): Promise<void> {
    this.deps.scheduler.schedule('flow', sub.seq, this.deps.clock.now().getTime());
    await this.deps.scheduler.settle();
  }

  /** Unsubscribed or deleted (inside `between`): nothing of it runs again. */
  stop(sub: SubscriptionRecord): void {
    this.deps.scheduler.cancel('flow', sub.seq);
    this.unwatch(sub);
  }

  /** A recipient changed: a wait for one of its flags that it now has ends now. */
  recipientChanged(recipient: RecipientRecord): void {
    const waiting = this.watching.get(recipientKey(recipient.team, recipient.email));
    if (!waiting) return;
    const now = this.deps.clock.now().getTime();
    for (const seq of waiting) {
      const sub = this.deps.store.subscriptions.get(seq);
      if (sub?.waiting && sub.waitFlag && recipient.flags.includes(sub.waitFlag)) this.deps.scheduler.schedule('flow', seq, now);
    }
  }

  /**
   * Forgets every schedule and reads the subscriptions again: after the sandbox's data was
   * reset or replaced underneath the engine.
   */
  reload(): void {
    this.deps.scheduler.cancelAll('flow');
    this.watching.clear();
    this.captured.clear();
    this.load();
  }

  private load(): void {
    const { store, scheduler } = this.deps;
    const active = new Map<number, SubscriptionRecord>();
    for (const sub of store.subscriptions.all()) if (sub.status === 'active') active.set(sub.seq, sub);
    for (const [, mark] of this.deps.messages.flowMarks()) {
      if (mark.subscription === undefined || mark.run === undefined) continue;
      // The stored subscription may be several steps behind its last capture (its segment and
      // the capture's are written by one flush, but not as one file): every capture at or after
      // its stored step count is one the replay must not send again.
      const sub = active.get(mark.subscription);
      if (sub && mark.run >= (sub.run ?? 0)) this.captured.add(capturedKey(sub.seq, mark.run, mark.step));
    }
    const now = this.deps.clock.now().getTime();
    for (const sub of active.values()) {
      if (!this.flowOf(sub)) continue;
      if (sub.waiting && sub.waitFlag) this.watch(sub);
      // A flag set while the engine was not watching (a restart) ends the wait now.
      const flagged = sub.waiting && sub.waitFlag && this.hasFlag(sub, sub.waitFlag);
      scheduler.schedule('flow', sub.seq, flagged ? now : Date.parse(sub.nextSendDate ?? '') || now);
    }
  }

  /** Runs a due subscription from its current step until it waits, completes or stops. */
  private async run(seq: number): Promise<void> {
    const sub = this.deps.store.subscriptions.get(seq);
    const flow = sub && sub.status === 'active' ? this.flowOf(sub) : undefined;
    if (!sub || !flow) return;
    const caller = this.deps.directory.sender(flow.sender)!;
    try {
      while (this.live(sub)) {
        const step = flow.steps[sub.currentStepOrder - 1];
        if (!step) return await this.finish(sub, flow.steps.length);
        if (sub.waiting) {
          if (!this.waitOver(sub)) return this.deps.scheduler.schedule('flow', seq, Date.parse(sub.nextSendDate!));
          this.unwatch(sub);
          sub.waiting = false;
          sub.waitFlag = null;
          this.advance(sub, flow, sub.currentStepOrder + 1);
          continue;
        }
        if (step.type === 'wait') {
          if (step.untilFlag === undefined || !this.hasFlag(sub, step.untilFlag)) return await this.startWait(sub, step);
          this.advance(sub, flow, sub.currentStepOrder + 1);
          continue;
        }
        const next = await this.runStep(sub, flow, caller, step);
        if (next === null) return;
        this.advance(sub, flow, next);
      }
      // Completed, or stopped meanwhile: the subscription as the last steps left it goes to disk
      // now (one removed meanwhile stays removed).
      await this.deps.store.update(() => {
        if (this.deps.store.subscriptions.get(sub.seq) === sub) this.deps.store.subscriptions.touch(sub);
      });
    } catch (error) {
      this.deps.log(`flow ${sub.flowTrigger}: subscription ${seq} failed at step ${sub.currentStepOrder}; trying again in a minute`, error);
      if (this.live(sub)) this.deps.scheduler.schedule('flow', seq, this.deps.clock.now().getTime() + RETRY_MS);
    }
  }

  /** Runs a send, condition or action step; the order of the step to go to, or null if the subscription stopped meanwhile. */
  private async runStep(sub: SubscriptionRecord, flow: FlowConfig, caller: Caller, step: Exclude<FlowStepConfig, { type: 'wait' }>): Promise<number | null> {
    const { recipients, blocks, messages } = this.deps;
    const order = sub.currentStepOrder;
    switch (step.type) {
      case 'send_email': {
        const run = sub.run ?? 0;
        if (this.captured.delete(capturedKey(sub.seq, run, order))) return order + 1;
        const person = recipients.find(sub.team, sub.email) ?? { email: sub.email, firstName: '', lastName: '' };
        await messages.ingest({
          source: 'flow',
          caller,
          recipient: sub.email,
          subject: renderTemplate(step.subject, person, false),
          html: renderTemplate(step.html, person, true),
          text: step.text === undefined ? null : renderTemplate(step.text, person, false),
          attachments: [],
          useAccountTemplate: step.useAccountTemplate,
          flow: { trigger: flow.trigger, step: order, subscription: sub.seq, run },
        });
        return this.live(sub) ? order + 1 : null;
      }
      case 'condition': {
        const has = this.hasFlag(sub, step.flag);
        const target = step.whenPresent !== undefined ? (has ? step.whenPresent : undefined) : !has ? step.whenMissing : undefined;
        return target === undefined ? order + 1 : stepOrder(flow, target);
      }
      case 'action':
        await this.deps.store.update(() => {
          if (step.action === 'set_flag') recipients.apply(sub.team, sub.email, { flags: [step.flag!] });
          else if (step.action === 'clear_flag') recipients.removeFlags(sub.team, sub.email, [step.flag!]);
          else blocks.block(sub.team, sub.email, 'suppressed');
        });
        return order + 1;
    }
  }

  private async startWait(sub: SubscriptionRecord, step: Extract<FlowStepConfig, { type: 'wait' }>): Promise<void> {
    const now = this.deps.clock.now();
    const ms = parseDuration(step.duration ?? step.timeout!)!;
    const until = new Date(now.getTime() + ms);
    sub.waiting = true;
    sub.waitFlag = step.untilFlag ?? null;
    sub.nextSendDate = until.toISOString();
    sub.updatedAt = now.toISOString();
    if (sub.waitFlag) this.watch(sub);
    await this.save(sub);
    this.deps.scheduler.schedule('flow', sub.seq, until.getTime());
  }

  /** Marks the current step done and moves to `next` (due now); past the last step, completes. */
  private advance(sub: SubscriptionRecord, flow: FlowConfig, next: number): void {
    const now = this.deps.clock.now().toISOString();
    const done = (sub.doneSteps ??= []);
    if (!done.includes(sub.currentStepOrder)) done.push(sub.currentStepOrder);
    sub.run = (sub.run ?? 0) + 1;
    sub.updatedAt = now;
    if (next <= flow.steps.length) {
      sub.currentStepOrder = next;
      sub.nextSendDate = now;
    } else {
      sub.status = 'completed';
      sub.nextSendDate = null;
    }
    this.deps.store.subscriptions.touch(sub);
    this.deps.events.emit('subscription.changed', sub);
  }

  /** The subscription stands past its flow's last step (the flow was shortened): completed. */
  private async finish(sub: SubscriptionRecord, last: number): Promise<void> {
    sub.status = 'completed';
    sub.currentStepOrder = Math.max(1, last);
    sub.nextSendDate = null;
    sub.updatedAt = this.deps.clock.now().toISOString();
    await this.save(sub);
  }

  private async save(sub: SubscriptionRecord): Promise<void> {
    await this.deps.store.update(() => this.deps.store.subscriptions.touch(sub));
    this.deps.events.emit('subscription.changed', sub);
  }

  private waitOver(sub: SubscriptionRecord): boolean {
    if (Date.parse(sub.nextSendDate ?? '') <= this.deps.clock.now().getTime()) return true;
    return sub.waitFlag ? this.hasFlag(sub, sub.waitFlag) : false;
  }

  private live(sub: SubscriptionRecord): boolean {
    return sub.status === 'active' && this.deps.store.subscriptions.get(sub.seq) === sub;
  }

  private hasFlag(sub: SubscriptionRecord, flag: string): boolean {
    return this.deps.recipients.find(sub.team, sub.email)?.flags.includes(flag) ?? false;
  }

  private flowOf(sub: SubscriptionRecord): FlowConfig | undefined {
    const flow = this.deps.directory.flow(sub.team, sub.flowTrigger);
    if (!flow && !this.missingFlows.has(sub.flowTrigger)) {
      this.missingFlows.add(sub.flowTrigger);
      this.deps.log(`flow ${sub.flowTrigger} is no longer configured: its active subscriptions do not run`);
    }
    return flow;
  }

  private watch(sub: SubscriptionRecord): void {
    const key = recipientKey(sub.team, sub.email);
    let set = this.watching.get(key);
    if (!set) this.watching.set(key, (set = new Set()));
    set.add(sub.seq);
  }

  private unwatch(sub: SubscriptionRecord): void {
    const key = recipientKey(sub.team, sub.email);
    const set = this.watching.get(key);
    set?.delete(sub.seq);
    if (set?.size === 0) this.watching.delete(key);
  }
}

function capturedKey(subscription: number, run: number, step: number): string {
  return `${subscription}:${run}:${step}`;
}

function recipientKey(team: string, email: string): string {
  return `${team}\u0000${emailKey(email)}`;
}
