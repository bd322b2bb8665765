import { useEffect, useState } from 'preact/hooks';
import { api, ApiError } from '../api.ts';
import { fullTime, shortTime } from '../format.ts';
import { useDebounced, useFrameTick, useLoad } from '../state/hooks.ts';
import type { Inbox } from '../state/inbox.ts';
import { Pager } from './pager.tsx';

const LIMIT = 50;
// A bounce or complaint blocks its recipient without a recipient.changed frame: at capture (no
// delivery delay: message.created) or when the outcome arrives (message.status).
const RELOAD_ON = ['recipient.changed', 'message.created', 'message.status', 'sandbox.reset', 'reconnected'];

/** Every recipient the sandbox knows, with flags and whether sends to them are blocked. */
export function RecipientsPage({ inbox }: { inbox: Inbox }) {
  const [search, setSearch] = useState('');
  const q = useDebounced(search, 200);
  const [offset, setOffset] = useState(0);
  const tick = useFrameTick(inbox, RELOAD_ON);
  const result = useLoad(() => api.recipients({ q: q.trim() || undefined, offset, limit: LIMIT }), [q, offset, tick]);
  useEffect(() => setOffset(0), [q]);

  return (
    <section class="page" aria-labelledby="recipients-title">
      <header class="page-header">
        <h1 id="recipients-title">Recipients</h1>
        <input
          type="search"
          class="page-search"
          placeholder="Search email or name…"
          aria-label="Search recipients"
          value={search}
          onInput={(e) => setSearch((e.target as HTMLInputElement).value)}
        />
      </header>
      {result.error ? (
        <p class="banner error" role="alert">
          {result.error instanceof ApiError && result.error.status === 404
            ? 'This server has no recipients API (GET /api/recipients).'
            : `Could not load recipients: ${result.error.message}`}
        </p>
      ) : null}
      {result.data && result.data.total === 0 ? (
        <p class="muted pad">
          {q ? 'No recipient matches this search.' : 'No recipients yet. A recipient is recorded when an email is sent to it or its flags are set.'}
        </p>
      ) : null}
      {result.data && result.data.recipients.length > 0 ? (
        <div class="table-wrap">
          <table class="table">
            <thead>
              <tr>
                <th scope="col">Email</th>
                <th scope="col">Name</th>
                <th scope="col">Team</th>
                <th scope="col">Flags</th>
                <th scope="col">State</th>
                <th scope="col">Updated</th>
              </tr>
            </thead>
            <tbody>
              {result.data.recipients.map((r) => (
                <tr key={`${r.team}/${r.email}`}>
                  <td class="strong">{r.email}</td>
                  <td data-label="Name">{[r.first_name, r.last_name].filter(Boolean).join(' ') || <span class="muted">—</span>}</td>
                  <td data-label="Team">{r.team}</td>
                  <td data-label="Flags">
                    {r.flags.length ? (
                      <span class="badges">
                        {r.flags.map((f) => (
                          <span key={f} class="badge tone-plain">
                            {f}
                          </span>
                        ))}
                      </span>
                    ) : (
                      <span class="muted">—</span>
                    )}
                  </td>
                  <td data-label="State">
                    {r.blocked ? (
                      <span class="badge tone-bad" title={r.block_reason ?? undefined}>
                        blocked{r.block_reason ? `: ${r.block_reason}` : ''}
                      </span>
                    ) : (
                      <span class="badge tone-good">active</span>
                    )}
                    {r.has_been_sent_email ? null : <span class="muted small"> never emailed</span>}
                  </td>
                  <td data-label="Updated" title={fullTime(r.updated_at)}>
                    {shortTime(r.updated_at)}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      {result.data ? <Pager total={result.data.total} offset={offset} limit={LIMIT} onOffset={setOffset} /> : null}
    </section>
  );
}
