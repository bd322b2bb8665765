import type { Ref } from 'preact';
import { useEffect, useState } from 'preact/hooks';
import { DELIVERY_STATUSES, type DeliveryStatus, type MessageFilter, type Source } from '../../types.ts';
import styles from './filter-bar.module.css';

interface Props {
  search: string;
  onSearch: (q: string) => void;
  filter: MessageFilter;
  onFilter: (filter: MessageFilter) => void;
  searchRef: Ref<HTMLInputElement>;
}

/** What a namespace can be (docs/testing.md): the server refuses anything else. */
const NAMESPACE = /^[A-Za-z0-9_-]{1,64}$/;

/** Search box and the filters the server applies (namespace, source, status, blocked, redirected, unread). */
export function FilterBar({ search, onSearch, filter, onFilter, searchRef }: Props) {
  const set = (patch: Partial<MessageFilter>) => onFilter({ ...filter, ...patch });
  // What is typed; the filter changes only when it is a namespace (or emptied).
  const [namespace, setNamespace] = useState(filter.namespace ?? '');
  useEffect(() => setNamespace((typed) => (typed.trim() === (filter.namespace ?? '') ? typed : (filter.namespace ?? ''))), [filter.namespace]);
  const namespaceValid = namespace.trim() === '' || NAMESPACE.test(namespace.trim());
  const active = filter.source || filter.status || filter.blocked || filter.redirected || filter.read === false || filter.namespace;
  return (
    <div class={styles.filterBar}>
      <div class={styles.search}>
        <svg viewBox="0 0 20 20" aria-hidden="true" class={styles.searchIcon}>
          <circle cx="8.5" cy="8.5" r="5.5" fill="none" stroke="currentColor" stroke-width="2" />
          <path d="M13 13l4 4" stroke="currentColor" stroke-width="2" stroke-linecap="round" />
        </svg>
        <input
          ref={searchRef}
          type="search"
          placeholder="Search subject, addresses, body text…"
          aria-label="Search messages"
          title="Every word must be in the subject, an address, the From, the sender id or the body's text (its first 1,000 characters)"
          aria-keyshortcuts="/"
          value={search}
          onInput={(e) => onSearch((e.target as HTMLInputElement).value)}
          onKeyDown={(e) => {
            // Esc empties the search, then leaves the box (the browser's own clearing would skip onInput).
            if (e.key !== 'Escape') return;
            e.preventDefault();
            if (search !== '') onSearch('');
            else (e.target as HTMLInputElement).blur();
          }}
        />
        {/* biome-ignore lint/a11y/noAriaHiddenOnFocusable: a kbd is not focusable (a false positive of Biome 2.5 and 2.6); the hint is for sighted keyboard users only. */}
        <kbd class={styles.searchHint} aria-hidden="true">
          /
        </kbd>
      </div>
      <div class={styles.filters} role="group" aria-label="Filters">
        <input
          class={styles.namespaceFilter}
          type="text"
          placeholder="Namespace"
          aria-label="Namespace"
          title="Only captures of this namespace: the +tag of an address (ada+t7f3k@example.com is in t7f3k)"
          spellcheck={false}
          autoComplete="off"
          aria-invalid={!namespaceValid}
          value={namespace}
          onInput={(e) => {
            const typed = (e.target as HTMLInputElement).value;
            setNamespace(typed);
            if (typed.trim() === '' || NAMESPACE.test(typed.trim())) set({ namespace: typed.trim().toLowerCase() || undefined });
          }}
        />
        <select
          aria-label="Source"
          value={filter.source ?? ''}
          onChange={(e) => set({ source: ((e.target as HTMLSelectElement).value || undefined) as Source | undefined })}
        >
          <option value="">Any source</option>
          <option value="api">API</option>
          <option value="smtp">SMTP</option>
          <option value="flow">Flow</option>
        </select>
        <select
          aria-label="Delivery status"
          value={filter.status ?? ''}
          onChange={(e) => set({ status: ((e.target as HTMLSelectElement).value || undefined) as DeliveryStatus | undefined })}
        >
          <option value="">Any status</option>
          {DELIVERY_STATUSES.map((s) => (
            <option key={s} value={s}>
              {s[0]!.toUpperCase() + s.slice(1)}
            </option>
          ))}
        </select>
        <Chip label="Unread" on={filter.read === false} toggle={() => set({ read: filter.read === false ? undefined : false })} />
        <Chip label="Blocked" on={filter.blocked === true} toggle={() => set({ blocked: filter.blocked ? undefined : true })} />
        <Chip label="Redirected" on={filter.redirected === true} toggle={() => set({ redirected: filter.redirected ? undefined : true })} />
        {active ? (
          <button type="button" class="link-button" onClick={() => onFilter({})}>
            Reset
          </button>
        ) : null}
      </div>
    </div>
  );
}

function Chip({ label, on, toggle }: { label: string; on: boolean; toggle: () => void }) {
  return (
    <button type="button" class={styles.chip} aria-pressed={on} onClick={toggle}>
      {label}
    </button>
  );
}
