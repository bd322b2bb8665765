import { fullTime, shortTime } from '../../format.ts';
import type { Inbox } from '../../state/inbox.ts';
import { usePagedList } from '../../state/paged-list.ts';
import { notFound, reason, sandbox } from '../../sandbox.ts';
import { Pager } from '../pager/pager.tsx';
import { Badge, Badges } from '../badges/badges.tsx';

// A bounce or complaint blocks its recipient without a recipient.changed frame: at capture (no
// delivery delay: message.created) or when the outcome arrives (message.status).
const RELOAD_ON = ['recipient.changed', 'message.created', 'message.status', 'sandbox.reset', 'reconnected'];

/** Every recipient the sandbox knows, with flags and whether sends to them are blocked. */
export function RecipientsPage({ inbox }: { inbox: Inbox }) {
  const result = usePagedList({
    source: inbox,
    reloadOn: RELOAD_ON,
    limit: 50,
    load: ({ query, offset, limit }, signal) => sandbox.recipients({ q: query || undefined, offset, limit, signal }),
  });

  return (
    <section class="page" aria-labelledby="recipients-title">
      <header class="page-header">
        <h1 id="recipients-title">Recipients</h1>
        <input
          type="search"
          class="page-search"
          placeholder="Search email or name…"
          aria-label="Search recipients"
          value={result.search}
          onInput={(e) => result.setSearch((e.target as HTMLInputElement).value)}
        />
      </header>
      {result.error ? (
        <p class="banner error" role="alert">
          {notFound(result.error) ? 'This server has no recipients API (GET /api/recipients).' : `Could not load recipients: ${reason(result.error)}`}
        </p>
      ) : null}
      {result.data && result.data.total === 0 ? (
        <p class="muted pad">
          {result.query ? 'No recipient matches this search.' : 'No recipients yet. A recipient is recorded when an email is sent to it or its flags are set.'}
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
                  <td class="strong">
                    <bdi>{r.email}</bdi>
                  </td>
                  <td data-label="Name">{[r.first_name, r.last_name].filter(Boolean).join(' ') || <span class="muted">—</span>}</td>
                  <td data-label="Team">{r.team}</td>
                  <td data-label="Flags">
                    {r.flags.length ? (
                      <Badges>
                        {r.flags.map((f) => (
                          <Badge key={f} tone="plain">
                            {f}
                          </Badge>
                        ))}
                      </Badges>
                    ) : (
                      <span class="muted">—</span>
                    )}
                  </td>
                  <td data-label="State">
                    {r.blocked ? (
                      <Badge tone="bad" title={r.block_reason ?? undefined}>
                        blocked{r.block_reason ? `: ${r.block_reason}` : ''}
                      </Badge>
                    ) : (
                      <Badge tone="good">active</Badge>
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
      {result.data ? <Pager total={result.data.total} offset={result.offset} limit={result.limit} onOffset={result.setOffset} /> : null}
    </section>
  );
}
