import styles from './pager.module.css';

/** Previous / next over a server-paged list. */
export function Pager({ total, offset, limit, onOffset }: { total: number; offset: number; limit: number; onOffset: (offset: number) => void }) {
  if (total <= limit) return null;
  const last = Math.min(total, offset + limit);
  return (
    <nav class={styles.pager} aria-label="Pages">
      <button type="button" class="button small" disabled={offset === 0} onClick={() => onOffset(Math.max(0, offset - limit))}>
        Previous
      </button>
      <span class="muted small">
        {(offset + 1).toLocaleString()}–{last.toLocaleString()} of {total.toLocaleString()}
      </span>
      <button type="button" class="button small" disabled={last >= total} onClick={() => onOffset(offset + limit)}>
        Next
      </button>
    </nav>
  );
}
