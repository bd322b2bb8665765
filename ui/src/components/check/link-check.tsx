import { useEffect, useRef, useState } from 'preact/hooks';
import { reason, sandbox } from '../../sandbox.ts';
import type { LinkCheckResult } from '../../types.ts';
import styles from './link-check.module.css';
import { Badge } from '../badges/badges.tsx';

type State =
  | { phase: 'idle' }
  | { phase: 'running' | 'done'; total: number; skipped: number; results: LinkCheckResult[] }
  | { phase: 'failed'; message: string };

/**
 * The link check, only when asked (the one thing that makes the sandbox reach out): each
 * link's row fills in as its answer arrives.
 */
export function LinkCheck({ id }: { id: string }) {
  const [state, setState] = useState<State>({ phase: 'idle' });
  const controller = useRef<AbortController | null>(null);
  useEffect(() => {
    setState({ phase: 'idle' });
    return () => controller.current?.abort();
  }, [id]);

  const run = () => {
    controller.current?.abort();
    const abort = (controller.current = new AbortController());
    setState({ phase: 'running', total: 0, skipped: 0, results: [] });
    sandbox
      .checkLinks(id, {
        signal: abort.signal,
        onEvent: (event) => {
          if (abort.signal.aborted) return;
          if (event.type === 'start') setState({ phase: 'running', total: event.total, skipped: event.skipped, results: [] });
          else if (event.type === 'link') {
            const { type: _, ...result } = event;
            setState((s) => (s.phase === 'running' ? { ...s, results: [...s.results, result] } : s));
          } else setState((s) => (s.phase === 'running' ? { ...s, phase: 'done' } : s));
        },
      })
      .catch((error: Error) => !abort.signal.aborted && setState({ phase: 'failed', message: reason(error) }));
  };

  return (
    <div class={styles.linkCheck}>
      <p class="muted small">
        Checks every http(s) link and image with a HEAD request (GET when refused), following up to 5 redirects. This is the only thing Pigeonhole sends out,
        and only when you press the button.
      </p>
      <button type="button" class="button" onClick={run} disabled={state.phase === 'running'}>
        {state.phase === 'running' ? 'Checking links…' : state.phase === 'done' ? 'Check links again' : 'Check links'}
      </button>
      {state.phase === 'failed' ? <p class="banner error">The link check failed: {state.message}</p> : null}
      {state.phase === 'running' || state.phase === 'done' ? (
        <>
          <p role="status" class="small">
            {state.results.length} of {state.total} checked
            {state.results.some((r) => !r.ok) ? `, ${state.results.filter((r) => !r.ok).length} broken` : ''}
            {state.skipped ? ` · ${state.skipped} other URLs (mailto:, relative, ...) not checked` : ''}
          </p>
          {state.total > 0 ? (
            <table class={`kv ${styles.linksTable}`} data-testid="links-table">
              <thead>
                <tr>
                  <th scope="col">Status</th>
                  <th scope="col">URL</th>
                  <th scope="col">Time</th>
                </tr>
              </thead>
              <tbody>
                {state.results.map((r) => (
                  <tr key={r.url} data-broken={r.ok ? undefined : 'true'}>
                    <td>
                      <Badge tone={r.ok ? 'good' : 'bad'}>{r.status ?? 'failed'}</Badge>
                    </td>
                    <td class={styles.linkUrl}>
                      <span class="muted small">{r.kind}</span> {r.url}
                      {r.final_url !== r.url ? (
                        <div class="muted small">
                          → {r.final_url} ({r.redirects} redirect{r.redirects === 1 ? '' : 's'})
                        </div>
                      ) : null}
                      {r.error ? <div class="error small">{r.error}</div> : null}
                    </td>
                    <td class="muted small">
                      {r.time_ms} ms{r.method === 'GET' ? ' (GET)' : ''}
                    </td>
                  </tr>
                ))}
              </tbody>
            </table>
          ) : null}
        </>
      ) : null}
    </div>
  );
}
