import type { CaptureStore } from '../../storage/capture-store.ts';
import type { Store } from '../../storage/store.ts';
import type { DeliveryStatus, MessageRecord } from '../entities.ts';
import type { Events } from '../events.ts';
import type { Clock } from '../time/clock.ts';
import type { Scheduler } from '../time/scheduler.ts';
import type { Blocks } from '../toolkit/blocks.ts';
import { outcomeBlock, simulatedOutcome } from '../toolkit/ses-simulator.ts';

export type ForcedStatus = Exclude<DeliveryStatus, 'pending'>;

/**
 * The rules of delivery (docs/api-contract.md §6): each capture's simulated outcome, its status
 * pending until the delivery delay has passed on the sandbox clock, a forced status, and the
 * block a bounce or a complaint puts on the recipient.
 */
export class Delivery {
  /** Captures whose status is pending, and when it turns into its outcome (sandbox clock, ms). */
  private readonly pending = new Map<number, number>();
  /** The writes of outcomes settled and not on disk yet, by capture. */
  private readonly writes = new Map<number, Promise<void>>();

  constructor(
    private readonly store: Store,
    private readonly captures: CaptureStore,
    private readonly clock: Clock,
    private readonly blocks: Blocks,
    private readonly events: Events,
    private readonly scheduler: Scheduler,
    private readonly delayMs: number,
  ) {
    for (const [seq, at] of captures.index.work.pendingDeliveries()) {
      this.pending.set(seq, at);
      scheduler.schedule('delivery', seq, at);
    }
  }

  /** A new capture's status, outcome and when it is delivered; blocked mail fails at once. */
  planned(blocked: boolean, firstAddress: string, now: Date): Pick<MessageRecord, 'status' | 'outcome' | 'deliverAt'> {
    const outcome = blocked ? 'failed' : simulatedOutcome(firstAddress);
    const settled = blocked || this.delayMs === 0;
    return { status: settled ? outcome : 'pending', outcome, deliverAt: settled ? null : new Date(now.getTime() + this.delayMs).toISOString() };
  }

  /** A new capture (not written yet): its outcome blocks now, or it is settled when due. */
  arrived(record: MessageRecord): void {
    if (record.status !== 'pending') {
      this.blockOnOutcome(record);
      return;
    }
    const at = new Date(record.deliverAt ?? 0).getTime();
    this.pending.set(record.seq, at);
    this.scheduler.schedule('delivery', record.seq, at);
  }

  /** A pending status becomes its outcome once the delivery delay has passed (written in the background). */
  settle(record: MessageRecord): MessageRecord {
    if (record.status !== 'pending' || record.deliverAt === null) return record;
    if (new Date(record.deliverAt).getTime() > this.clock.now().getTime()) return record;
    const { seq } = record;
    const write = this.store.update(() => {
      record.status = record.outcome;
      record.deliverAt = null;
      record.updatedAt = this.clock.now().toISOString();
      this.captures.index.setStatus(seq, record.status);
      this.pending.delete(seq);
      this.captures.put(record);
      this.blockOnOutcome(record);
    });
    this.writes.set(seq, write);
    void write
      .catch(() => undefined)
      .finally(() => {
        if (this.writes.get(seq) === write) this.writes.delete(seq);
      });
    this.events.emit('message.status', record);
    this.scheduler.cancel('delivery', record.seq);
    return record;
  }

  /**
   * Forces a capture's delivery status (the sandbox API). A forced bounce or complaint blocks
   * the recipient as a real one does, once the status is on disk.
   */
  async setStatus(record: MessageRecord, status: ForcedStatus): Promise<MessageRecord> {
    const before = { status: record.status, outcome: record.outcome, deliverAt: record.deliverAt, updatedAt: record.updatedAt };
    await this.store.update(
      () => {
        record.status = status;
        record.outcome = status;
        record.deliverAt = null;
        record.updatedAt = this.clock.now().toISOString();
        this.captures.index.setStatus(record.seq, status);
        this.captures.put(record);
      },
      {
        // Refused: the capture stays as it was (the queued line writes the old state back).
        undo: () => {
          Object.assign(record, before);
          this.captures.index.setStatus(record.seq, before.status);
        },
      },
    );
    this.forget(record.seq);
    await this.store.update(() => this.blockOnOutcome(record));
    this.events.emit('message.status', record);
    return record;
  }

  /** Resolves once the capture's settled outcome is on disk (at once when none is being written). */
  async written(seq: number): Promise<void> {
    await this.writes.get(seq);
  }

  /** A capture gone (or never stored): its outcome is no longer due. */
  forget(seq: number): void {
    this.pending.delete(seq);
    this.scheduler.cancel('delivery', seq);
  }

  /** Every capture gone. */
  clear(): void {
    for (const seq of this.pending.keys()) this.scheduler.cancel('delivery', seq);
    this.pending.clear();
  }

  /** A bounce or a complaint blocks the original recipient (toolkit/ses-simulator.ts: outcomeBlock). */
  private blockOnOutcome(record: MessageRecord): void {
    const block = outcomeBlock(record, record.status);
    if (block) this.blocks.block(block.team, block.email, block.reason);
  }
}
