import { useCallback, useEffect, useMemo } from 'preact/hooks';
import { useSubscription } from '../../state/hooks.ts';
import { Inbox } from '../../state/inbox.ts';
import { Notices } from '../../state/notices.ts';
import { useRoute, type Route } from '../../state/route.ts';
import { ComparePage } from '../compare-page/compare-page.tsx';
import { InboxPage } from '../inbox-page/inbox-page.tsx';
import { NoticeArea, NoticesContext } from '../notices/notices.tsx';
import { RecipientsPage } from '../recipients-page/recipients-page.tsx';
import { SubscriptionsPage } from '../subscriptions-page/subscriptions-page.tsx';
import { TemplatePreviewPage } from '../template-preview-page/template-preview-page.tsx';
import styles from './app.module.css';

const NAV: { page: Route['page']; href: string; label: string }[] = [
  { page: 'inbox', href: '#/', label: 'Inbox' },
  { page: 'recipients', href: '#/recipients', label: 'Recipients' },
  { page: 'subscriptions', href: '#/subscriptions', label: 'Flows' },
  { page: 'preview', href: '#/preview', label: 'Templates' },
];

export function App() {
  const inbox = useMemo(() => new Inbox(), []);
  const notices = useMemo(() => new Notices(), []);
  useEffect(() => {
    inbox.start();
    return () => inbox.stop();
  }, [inbox]);
  useSubscription(useCallback((listener: () => void) => inbox.subscribe(listener), [inbox]));
  const route = useRoute();
  const connection = inbox.connection;
  const unread = inbox.unread ?? 0;
  useEffect(() => {
    document.title = unread > 0 ? `(${unread.toLocaleString()}) Pigeonhole` : 'Pigeonhole';
  }, [unread]);
  return (
    <NoticesContext.Provider value={notices}>
      <div class={styles.app}>
        <header class={styles.topbar}>
          <a class={styles.brand} href="#/" aria-label="Pigeonhole inbox">
            <svg viewBox="0 0 32 32" aria-hidden="true">
              <rect width="32" height="32" rx="7" fill="var(--accent)" />
              <path d="M7 10h18v12H7z" fill="none" stroke="white" stroke-width="2.2" stroke-linejoin="round" />
              <path d="M7 10l9 7 9-7" fill="none" stroke="white" stroke-width="2.2" stroke-linejoin="round" />
            </svg>
            <span>Pigeonhole</span>
          </a>
          <nav aria-label="Main">
            {NAV.map((item) => (
              <a key={item.page} href={item.href} aria-current={route.page === item.page ? 'page' : undefined}>
                {item.label}
                {item.page === 'inbox' && unread > 0 ? (
                  <span class={styles.count} role="img" aria-label={`${unread} unread`}>
                    {unread > 9999 ? '9999+' : unread.toLocaleString()}
                  </span>
                ) : null}
              </a>
            ))}
          </nav>
          <span
            class={`${styles.connection} ${styles[connection] ?? ''}`}
            role="status"
            title={connection === 'live' ? 'New mail appears as it arrives' : 'Reconnecting to the server'}
          >
            <span class={styles.dot} aria-hidden="true" />
            {connection === 'live' ? 'Live' : connection === 'connecting' ? 'Connecting…' : 'Offline, retrying…'}
          </span>
        </header>
        <main class={styles.main}>
          {route.page === 'inbox' ? <InboxPage inbox={inbox} openId={route.id} view={route.view} /> : null}
          {route.page === 'recipients' ? <RecipientsPage inbox={inbox} /> : null}
          {route.page === 'subscriptions' ? <SubscriptionsPage inbox={inbox} /> : null}
          {route.page === 'preview' ? <TemplatePreviewPage inbox={inbox} query={route.query} /> : null}
          {route.page === 'compare' ? <ComparePage a={route.a} b={route.b} view={route.view} /> : null}
        </main>
        <NoticeArea notices={notices} />
      </div>
    </NoticesContext.Provider>
  );
}
