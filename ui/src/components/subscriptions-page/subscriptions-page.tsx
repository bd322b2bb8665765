import { useState } from 'preact/hooks';
import { fullTime, relativeTime } from '../../format.ts';
import type { Inbox } from '../../state/inbox.ts';
import { usePagedList } from '../../state/paged-list.ts';
import { notFound, reason, sandbox } from '../../sandbox.ts';
import type { StepState, Subscription } from '../../types.ts';
import { ClockControl } from './clock-control.tsx';
import { Pager } from '../pager/pager.tsx';
import styles from './subscriptions-page.module.css';
import { Badge } from '../badges/badges.tsx';

const RELOAD_ON = ['subscription.changed', 'subscription.removed', 'reconnected', 'clock.changed', 'sandbox.reset'];

/** Flow subscriptions with their timelines, and the clock that drives them. */
export function SubscriptionsPage({ inbox }: { inbox: Inbox }) {
  const result = usePagedList({
    source: inbox,
    reloadOn: RELOAD_ON,
    limit: 25,
    load: ({ query, offset, limit }, signal) => sandbox.subscriptions({ email: query || undefined, offset, limit, signal }),
  });
  const missing = notFound(result.error);
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
          value={result.search}
          onInput={(e) => result.setSearch((e.target as HTMLInputElement).value)}
        />
      </header>
      <div class={styles.subsLayout}>
        <div class={styles.subsList}>
          {missing ? (
            <p class="banner info" role="status">
              This server has no subscriptions API (<code>/api/subscriptions</code> answered 404): the flow engine is not part of this build.
            </p>
          ) : result.error ? (
            <p class="banner error" role="alert">
              Could not load subscriptions: {reason(result.error)}
            </p>
          ) : null}
          {result.data && result.data.total === 0 ? (
            <p class="muted pad">
              No subscriptions{result.query ? ' for this email' : ''}. Subscribe a recipient with <code>POST /v1/flows/subscribe/</code>.
            </p>
          ) : null}
          {result.data?.subscriptions.map((s) => (
            <SubscriptionCard key={s.id} subscription={s} offsetMs={offsetMs} />
          ))}
          {result.data ? <Pager total={result.data.total} offset={result.offset} limit={result.limit} onOffset={result.setOffset} /> : null}
        </div>
        {/* A clock move made here reloads at once, without waiting for its frame. */}
        <ClockControl inbox={inbox} onChanged={result.reload} onClock={(clock) => setOffsetMs(clock?.offset_ms ?? 0)} />
      </div>
    </section>
  );
}

/** Each step state's class (a pending step has none of its own). */
const STEP_STATE: Record<StepState, string> = { done: styles.stepDone!, current: styles.stepCurrent!, skipped: styles.stepSkipped!, pending: '' };

function SubscriptionCard({ subscription: s, offsetMs }: { subscription: Subscription; offsetMs: number }) {
  return (
    <article class="card" aria-label={`${s.flow_name} for ${s.email}`}>
      <header class={styles.subHeader}>
        <div>
          <h2>{s.flow_name || s.trigger}</h2>
          <p class="muted small">
            <bdi>{s.email}</bdi> · team {s.team} · #{s.id}
          </p>
        </div>
        <Badge tone={s.status === 'active' ? 'info' : s.status === 'completed' ? 'good' : 'neutral'}>{s.status}</Badge>
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
        <ol class={styles.timeline}>
          {s.steps.map((step) => (
            <li key={step.order} class={`${styles.step} ${STEP_STATE[step.state]}`} aria-current={step.state === 'current' ? 'step' : undefined}>
              <span class={styles.stepMarker} aria-hidden="true" />
              <span class={styles.stepBody}>
                <span class={styles.stepName}>
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
