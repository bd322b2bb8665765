import type { Store } from '../../storage/store.ts';
import type { ClockState, SandboxClock } from './clock.ts';
import { ClockCannotMoveBack, ClockOutOfRange } from '../errors.ts';
import type { Events } from '../events.ts';
import type { Scheduler } from './scheduler.ts';

/** The last instant the wire format can show (ISO years stop at 9999). */
const LATEST = Date.UTC(9999, 11, 31, 23, 59, 59);

/**
 * Moves the sandbox clock for the sandbox API. Advancing (or setting a later instant) runs
 * every flow step and delivery outcome that falls due on the way, in due order, each at its
 * own instant, before it resolves. The offset is stored in meta.json, so a restart keeps the
 * sandbox's time (it goes on ticking from where it was, real time added).
 */
export class ClockControl {
  constructor(
    private readonly clock: SandboxClock,
    private readonly scheduler: Scheduler,
    private readonly store: Store,
    private readonly events: Events,
  ) {
    clock.setOffset(store.clockOffset.ms);
  }

  read(): ClockState {
    const offsetMs = this.clock.offset;
    return { now: this.clock.now(), offsetMs, realTime: offsetMs === 0 };
  }

  advance(ms: number): Promise<ClockState> {
    return this.moveForward((now) => now + ms);
  }

  /** Sets the clock to a later instant; an earlier one is refused. */
  set(at: Date): Promise<ClockState> {
    return this.moveForward(() => at.getTime());
  }

  /** Back to real time. Nothing is undone: schedules keep their instants. */
  reset(): Promise<ClockState> {
    return this.scheduler.exclusive(async () => {
      const offset = this.clock.offset;
      this.clock.setOffset(0);
      return this.changed(offset);
    });
  }

  /**
   * The clock reads `target(now)` at the instant the move was asked for: the offset grows by
   * exactly `at - now`, however long running what fell due takes (an advance of 1m is 60000 ms).
   */
  private moveForward(target: (now: number) => number): Promise<ClockState> {
    return this.scheduler.exclusive(async () => {
      const offset = this.clock.offset;
      const now = this.clock.now().getTime();
      const at = target(now);
      if (at > LATEST) throw new ClockOutOfRange();
      if (at < now) throw new ClockCannotMoveBack(new Date(now));
      try {
        await this.scheduler.runUntil(at);
      } finally {
        this.clock.setOffset(offset + (at - now));
      }
      return this.changed(offset);
    });
  }

  /**
   * Stores the moved clock. A move whose offset cannot be written is undone (the clock reads as
   * before it, in memory and on disk), so a client that retries the refused call moves the clock
   * once, not twice. What fell due on the way stays done, each at its own instant: a retry does
   * not run it again.
   */
  private async changed(previousOffset: number): Promise<ClockState> {
    await this.store.update(
      () => {
        this.store.clockOffset.set(this.clock.offset);
        this.scheduler.clockMoved();
      },
      {
        undo: () => {
          this.clock.setOffset(previousOffset);
          this.store.clockOffset.set(previousOffset);
          this.scheduler.clockMoved();
        },
      },
    );
    const state = this.read();
    this.events.emit('clock.changed', state);
    return state;
  }
}
