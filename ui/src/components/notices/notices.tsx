import { createContext } from 'preact';
import { useCallback, useContext } from 'preact/hooks';
import { useSubscription } from '../../state/hooks.ts';
import type { Notices } from '../../state/notices.ts';
import styles from './notices.module.css';

export const NoticesContext = createContext<Notices | null>(null);

/** Where a view reports what the user asked for and did not happen (the app shell shows it). */
export function useNotices(): Notices {
  const notices = useContext(NoticesContext);
  if (!notices) throw new Error('useNotices needs the NoticesContext of the app shell');
  return notices;
}

/**
 * The one place failures are shown: at the bottom of the window, each until it is dismissed or
 * superseded. A polite live region, so a screen reader reads a new one without moving focus.
 */
export function NoticeArea({ notices }: { notices: Notices }) {
  useSubscription(useCallback((listener: () => void) => notices.subscribe(listener), [notices]));
  return (
    <div class={styles.notices} aria-live="polite" aria-atomic="false" aria-relevant="additions text">
      {notices.items.map((notice) => (
        <div key={notice.id} class={styles.notice} data-testid="notice" role="group" aria-labelledby={`notice-${notice.id}`}>
          <svg class={styles.noticeIcon} viewBox="0 0 20 20" aria-hidden="true">
            <circle cx="10" cy="10" r="8.5" fill="none" stroke="currentColor" stroke-width="1.8" />
            <path d="M10 5.5v5.5" stroke="currentColor" stroke-width="2" stroke-linecap="round" />
            <circle cx="10" cy="14.2" r="1.2" fill="currentColor" />
          </svg>
          <div class={styles.noticeText}>
            <p id={`notice-${notice.id}`} class={styles.noticeTitle} data-testid="notice-title">
              {notice.title}
            </p>
            <p class={styles.noticeDetail} data-testid="notice-detail">
              {notice.detail}
            </p>
            {notice.advice ? (
              <p class={styles.noticeAdvice} data-testid="notice-advice">
                {notice.advice}
              </p>
            ) : null}
          </div>
          <button type="button" class={styles.noticeDismiss} aria-label="Dismiss" title="Dismiss" onClick={() => notices.dismiss(notice.id)}>
            <svg viewBox="0 0 16 16" aria-hidden="true">
              <path d="M4 4l8 8M12 4l-8 8" stroke="currentColor" stroke-width="1.8" stroke-linecap="round" />
            </svg>
          </button>
        </div>
      ))}
    </div>
  );
}
