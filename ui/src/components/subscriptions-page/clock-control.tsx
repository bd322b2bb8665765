import { useEffect, useState } from 'preact/hooks';
import { notFound, reason, sandbox } from '../../sandbox.ts';
import { fullTime } from '../../format.ts';
import type { Inbox } from '../../state/inbox.ts';
import type { Clock } from '../../types.ts';
import { useNotices } from '../notices/notices.tsx';
import styles from './clock-control.module.css';
import { Badge } from '../badges/badges.tsx';

type ClockState = { kind: 'loading' } | { kind: 'ready'; clock: Clock } | { kind: 'missing' } | { kind: 'error'; message: string };

/**
 * The sandbox clock: where it stands, and buttons to move it forward (running every flow step
 * and delivery that falls due) or back to real time. A server without the clock API says so.
 */
export function ClockControl({ inbox, onChanged, onClock }: { inbox: Inbox; onChanged: () => void; onClock: (clock: Clock | null) => void }) {
  const notices = useNotices();
  const [state, setState] = useState<ClockState>({ kind: 'loading' });
  const [custom, setCustom] = useState('');
  const [busy, setBusy] = useState(false);
  useEffect(() => onClock(state.kind === 'ready' ? state.clock : null), [state]);
  // The clock keeps running between answers: show it ticking (wall clock plus the offset).
  const [, setTick] = useState(0);
  useEffect(() => {
    const timer = setInterval(() => setTick((t) => t + 1), 1000);
    return () => clearInterval(timer);
  }, []);

  const load = () =>
    sandbox.clock.get().then(
      (clock) => setState({ kind: 'ready', clock }),
      (error: Error) => setState(notFound(error) ? { kind: 'missing' } : { kind: 'error', message: reason(error) }),
    );
  useEffect(() => {
    void load();
    return inbox.onFrame((frame) => {
      if (frame.type === 'clock.changed' || frame.type === 'reconnected') void load();
    });
  }, [inbox]);

  const act = async (action: () => Promise<Clock>) => {
    setBusy(true);
    try {
      setState({ kind: 'ready', clock: await action() });
      notices.succeeded('clock');
      onChanged();
    } catch (error) {
      notices.fail('clock', 'Could not move the sandbox clock.', error);
    } finally {
      setBusy(false);
    }
  };

  if (state.kind === 'missing') {
    return (
      <aside class={`${styles.clock} card`} aria-label="Sandbox clock">
        <h2>Sandbox clock</h2>
        <p class="banner info" role="status">
          This server has no clock control (<code>/api/clock</code> answered 404): it runs a build without the flow engine. Flows cannot be fast-forwarded here.
        </p>
      </aside>
    );
  }
  return (
    <aside class={`${styles.clock} card`} aria-label="Sandbox clock">
      <h2>Sandbox clock</h2>
      {state.kind === 'loading' ? <p class="muted">Loading…</p> : null}
      {state.kind === 'error' ? <p class="banner error">Could not read the clock: {state.message}</p> : null}
      {state.kind === 'ready' ? (
        <p class={styles.clockNow}>
          <time dateTime={state.clock.now}>{fullTime(new Date(Date.now() + state.clock.offset_ms).toISOString())}</time>
          <Badge tone={state.clock.real_time ? 'good' : 'warn'}>{state.clock.real_time ? 'real time' : `ahead by ${duration(state.clock.offset_ms)}`}</Badge>
        </p>
      ) : null}
      <div class={styles.clockActions}>
        <button type="button" class="button" disabled={busy || state.kind !== 'ready'} onClick={() => void act(() => sandbox.clock.advance('1h'))}>
          +1 hour
        </button>
        <button type="button" class="button" disabled={busy || state.kind !== 'ready'} onClick={() => void act(() => sandbox.clock.advance('1d'))}>
          +1 day
        </button>
        <form
          class={styles.clockCustom}
          onSubmit={(e) => {
            e.preventDefault();
            if (custom.trim()) void act(() => sandbox.clock.advance(custom.trim()));
          }}
        >
          <input
            type="text"
            aria-label="Advance by (for example 90m, 2d, 1d12h)"
            placeholder="e.g. 90m, 2d"
            value={custom}
            onInput={(e) => setCustom((e.target as HTMLInputElement).value)}
            size={9}
          />
          <button type="submit" class="button" disabled={busy || state.kind !== 'ready' || !custom.trim()}>
            Advance
          </button>
        </form>
        <button
          type="button"
          class="button"
          disabled={busy || state.kind !== 'ready' || (state.kind === 'ready' && state.clock.real_time)}
          onClick={() => void act(() => sandbox.clock.reset())}
        >
          Back to real time
        </button>
      </div>
    </aside>
  );
}

function duration(ms: number): string {
  const parts: string[] = [];
  let rest = Math.round(ms / 1000);
  for (const [unit, size] of [
    ['d', 86400],
    ['h', 3600],
    ['m', 60],
    ['s', 1],
  ] as const) {
    const n = Math.floor(rest / size);
    if (n > 0) parts.push(`${n}${unit}`);
    rest -= n * size;
  }
  return parts.join(' ') || '0s';
}
