import { useEffect, useState } from 'preact/hooks';
import { api, ApiError } from '../api.ts';
import { fullTime, relativeTime } from '../format.ts';
import { useDebounced, useFrameTick, useLoad } from '../state/hooks.ts';
import type { Inbox } from '../state/inbox.ts';
import type { Subscription } from '../types.ts';
import { ClockControl } from './clock-control.tsx';
import { Pager } from './pager.tsx';

const LIMIT = 25;
const RELOAD_ON = ['subscription.changed', 'subscription.removed', 'reconnected', 'clock.changed', 'sandbox.reset'];

/** Flow subscriptions with their timelines, and the clock that drives them. */
export function SubscriptionsPage({ inbox }: { inbox: Inbox }) {
  const [search, setSearch] = useState('');
  const email = useDebounced(search, 200);
  const [offset, setOffset] = useState(0);
  const tick = useFrameTick(inbox, RELOAD_ON);
  // A clock move made here reloads at once, without waiting for its frame.
  const [moves, setMoves] = useState(0);
  const result = useLoad(() => api.subscriptions({ email: email.trim() || undefined, offset, limit: LIMIT }), [email, offset, tick, moves]);
  useEffect(() => setOffset(0), [email]);
  const missing = result.error instanceof ApiError && result.error.status === 404;
  // "Due in …" is measured on the sandbox clock, which may be ahead of the wall clock.
  const [offsetMs, setOffsetMs] = useState(0);

  return (
    <section class="page" aria-labelledby="subs-title">
      <header class="page-header">
        <h1 id="subs-title">Flow subscriptions</h1>
        <input
          type="search"
          class="page-search"
          placeholder="Filter by email…"
          aria-label="Filter subscriptions by email"
          value={search}
          onInput={(e) => setSearch((e.target as HTMLInputElement).value)}
        />
      </header>
      <div class="subs-layout">
        <div class="subs-list">
          {missing ? (
            <p class="banner info" role="status">
              This server has no subscriptions API (<code>/api/subscriptions</code> answered 404): the flow engine is not part of this build.
            </p>
          ) : result.error ? (
            <p class="banner error" role="alert">
              Could not load subscriptions: {result.error.message}
            </p>
          ) : null}
          {result.data && result.data.total === 0 ? (
            <p class="muted pad">
              No subscriptions{email ? ' for this email' : ''}. Subscribe a recipient with <code>POST /v1/flows/subscribe/</code>.
            </p>
          ) : null}
          {result.data?.subscriptions.map((s) => (
            <SubscriptionCard key={s.id} subscription={s} offsetMs={offsetMs} />
          ))}
          {result.data ? <Pager total={result.data.total} offset={offset} limit={LIMIT} onOffset={setOffset} /> : null}
        </div>
        <ClockControl inbox={inbox} onChanged={() => setMoves((n) => n + 1)} onClock={(clock) => setOffsetMs(clock?.offset_ms ?? 0)} />
      </div>
    </section>
  );
}

function SubscriptionCard({ subscription: s, offsetMs }: { subscription: Subscription; offsetMs: number }) {
  return (
    <article class="card subscription" aria-label={`${s.flow_name} for ${s.email}`}>
      <header class="sub-header">
        <div>
          <h2 class="sub-title">{s.flow_name || s.trigger}</h2>
          <p class="muted small">
            {s.email} · team {s.team} · #{s.id}
          </p>
        </div>
        <span class={`badge ${s.status === 'active' ? 'tone-info' : s.status === 'completed' ? 'tone-good' : 'tone-neutral'}`}>{s.status}</span>
      </header>
      {s.next_send_date && s.status === 'active' ? (
        <p class="small">
          Next step due{' '}
          <time dateTime={s.next_send_date} title={fullTime(s.next_send_date)}>
            {relativeTime(s.next_send_date, Date.now() + offsetMs)}
          </time>{' '}
          ({fullTime(s.next_send_date)})
        </p>
      ) : null}
      {s.steps.length === 0 ? (
        <p class="muted small">This flow has no steps.</p>
      ) : (
        <ol class="timeline">
          {s.steps.map((step) => (
            <li key={step.order} class={`step step-${step.state}`} aria-current={step.state === 'current' ? 'step' : undefined}>
              <span class="step-marker" aria-hidden="true" />
              <span class="step-body">
                <span class="step-name">
                  {step.order}. {step.name ?? step.type.replace('_', ' ')}
                  <span class="muted small"> · {step.state}</span>
                </span>
                <span class="muted small">{step.summary}</span>
              </span>
            </li>
          ))}
        </ol>
      )}
    </article>
  );
}
