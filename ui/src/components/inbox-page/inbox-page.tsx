import { useCallback, useEffect, useRef, useState } from 'preact/hooks';
import { plural } from '../../format.ts';
import { useDebounced, useSubscription } from '../../state/hooks.ts';
import type { Inbox } from '../../state/inbox.ts';
import { SandboxUnreachable, reason, sandbox } from '../../sandbox.ts';
import { useMessageViewState } from '../../state/message-view-state.ts';
import { messageHref, namespaceFromUrl, navigate, openMessageId, showNamespaceInUrl } from '../../state/route.ts';
import type { MessageFilter } from '../../types.ts';
import { ConfirmDialog } from '../confirm-dialog/confirm-dialog.tsx';
import { FilterBar } from '../filter-bar/filter-bar.tsx';
import { GettingStarted } from '../getting-started/getting-started.tsx';
import { MessageList } from '../message-list/message-list.tsx';
import { MessageView } from '../message-view/message-view.tsx';
import { useNotices } from '../notices/notices.tsx';
import type { ViewParams } from '../../state/view-url.ts';
import styles from './inbox-page.module.css';

/** The inbox: search and filters, the live list, and the open message beside it. */
export function InboxPage({ inbox, openId, view: asked }: { inbox: Inbox; openId: string | null; view: ViewParams }) {
  const list = inbox.list;
  const notices = useNotices();
  const subscribe = useCallback((listener: () => void) => list.subscribe(listener), [list]);
  useSubscription(subscribe);
  const [search, setSearch] = useState('');
  const [filter, setFilter] = useState<MessageFilter>(() => {
    const namespace = namespaceFromUrl();
    return namespace === undefined ? {} : { namespace };
  });
  // Searched once typing pauses for 120 ms: a burst of keys costs one request, and the first
  // match still shows well within 300 ms of the last one (bench/search.ts).
  const q = useDebounced(search, 120);
  const [selected, setSelectedState] = useState(-1);
  // Keys can arrive faster than renders (j then Enter): handlers read the ref, not the render's value.
  const selectedRef = useRef(-1);
  const setSelected = (index: number) => {
    selectedRef.current = index;
    setSelectedState(index);
  };
  const [confirmClear, setConfirmClear] = useState(false);
  const [view, setView] = useMessageViewState(openId, asked);
  const searchRef = useRef<HTMLInputElement>(null);

  useEffect(() => inbox.setFilter({ ...filter, q }), [inbox, filter, q]);
  useEffect(() => showNamespaceInUrl(filter.namespace?.trim() || undefined), [filter.namespace]);

  // The open message is the selected row.
  useEffect(() => {
    if (openId) {
      const index = list.indexOf(openId);
      if (index >= 0) setSelected(index);
    }
  }, [openId, list.items]);

  const open = (index: number) => {
    const message = list.at(index);
    if (message) navigate(messageHref(message.id));
  };
  const remove = async (id: string) => {
    const index = list.indexOf(id);
    const next = list.at(index + 1) ?? list.at(index - 1);
    list.removeLocally([id]);
    try {
      await sandbox.remove(id);
      notices.succeeded(`delete:${id}`);
      if (openMessageId() === id) navigate(next ? messageHref(next.id) : '#/');
    } catch (error) {
      // It is still there: the refetch below puts its row back, and it stays open.
      notices.fail(`delete:${id}`, 'Could not delete the message.', error);
    }
    list.invalidate();
  };
  // With a namespace filter, "Clear" empties that namespace only (a test's own mail); otherwise
  // it deletes every capture, and says so when a search or filter shows only some of them.
  const namespace = filter.namespace;
  const clearAll = async () => {
    setConfirmClear(false);
    try {
      await (namespace ? sandbox.reset({ namespace }) : sandbox.clear());
      notices.succeeded('clear');
      navigate('#/');
    } catch (error) {
      notices.fail('clear', 'Could not delete the messages.', error);
    }
    list.invalidate();
  };

  // j/k and arrows move, Enter opens, Delete deletes, / searches, Esc goes back.
  useEffect(() => {
    const onKey = (event: KeyboardEvent) => {
      if (event.defaultPrevented || event.metaKey || event.ctrlKey || event.altKey) return;
      const target = event.target as HTMLElement;
      const typing = target.closest('input, textarea, select, [contenteditable=true]') !== null;
      if (document.querySelector('dialog[open]')) return;
      // The URL, not this render's props: a key can follow a navigation before the re-render.
      const openNow = openMessageId();
      if (event.key === 'Escape') {
        if (typing) (target as HTMLElement).blur();
        else if (openNow) navigate('#/');
        return;
      }
      if (typing) return;
      const move = (delta: number) => {
        event.preventDefault();
        const current = selectedRef.current;
        const next = Math.max(0, Math.min(list.total - 1, (current < 0 ? (delta > 0 ? -1 : 0) : current) + delta));
        setSelected(next);
        if (openNow) open(next);
      };
      // In the message's panel (focusable so a keyboard can scroll it) the arrows scroll; j and k still move.
      const scrolling = target.closest('[role="tabpanel"]') !== null;
      if (event.key === 'j' || (event.key === 'ArrowDown' && !scrolling)) move(1);
      else if (event.key === 'k' || (event.key === 'ArrowUp' && !scrolling)) move(-1);
      else if (event.key === 'Enter' && selectedRef.current >= 0 && target.tagName !== 'BUTTON' && target.tagName !== 'A') {
        event.preventDefault();
        open(selectedRef.current);
      } else if (event.key === 'Delete') {
        const id = openNow ?? list.at(selectedRef.current)?.id;
        if (id) {
          event.preventDefault();
          void remove(id);
        }
      } else if (event.key === '/') {
        event.preventDefault();
        searchRef.current?.focus();
      }
    };
    document.addEventListener('keydown', onKey);
    return () => document.removeEventListener('keydown', onKey);
  });

  const filtered = q.trim() !== '' || Object.values(filter).some((v) => v !== undefined);
  const empty = list.loaded && list.total === 0;
  // While the connection indicator says the sandbox is away, a list that cannot reach it says nothing more.
  const listError = list.error instanceof SandboxUnreachable && inbox.connection !== 'live' ? null : list.error;
  return (
    <div class={[styles.inbox, openId ? styles.hasOpen : '', empty && !filtered ? styles.isEmpty : ''].join(' ').trim()}>
      <section class={styles.listPane} aria-label="Inbox">
        <FilterBar search={search} onSearch={setSearch} filter={filter} onFilter={setFilter} searchRef={searchRef} />
        <div class={styles.listMeta} data-testid="list-meta">
          <span aria-live="polite">{list.loaded ? (filtered ? `${plural(list.total, 'match', 'matches')}` : plural(list.total, 'message')) : 'Loading…'}</span>
          <button type="button" class="link-button danger" onClick={() => setConfirmClear(true)} disabled={list.total === 0 && !filtered}>
            {namespace ? `Clear ${namespace}` : 'Clear all'}
          </button>
        </div>
        {listError ? (
          <p class="banner error" role="alert">
            Could not load messages: {reason(listError)}
          </p>
        ) : null}
        {empty && filtered ? <p class="muted pad center">No messages match this search.</p> : null}
        {empty && !filtered ? <p class={`muted pad center ${styles.collapsible}`}>The inbox is empty.</p> : null}
        <MessageList class={styles.collapsible} list={list} selected={selected} onSelect={setSelected} />
      </section>
      <section class={styles.viewPane} aria-label="Message">
        {openId ? (
          <MessageView key={openId} id={openId} inbox={inbox} view={view} onView={setView} onBack={() => navigate('#/')} onDelete={(id) => void remove(id)} />
        ) : empty && !filtered ? (
          <GettingStarted smtpPort={inbox.smtpPort} />
        ) : (
          <div class="view-empty muted">
            <p>Select a message to read it.</p>
            <p class="small">
              <kbd>j</kbd> <kbd>k</kbd> move · <kbd>Enter</kbd> open · <kbd>Del</kbd> delete · <kbd>/</kbd> search · <kbd>Esc</kbd> back
            </p>
          </div>
        )}
      </section>
      <ConfirmDialog
        open={confirmClear}
        title={namespace ? `Delete namespace ${namespace}?` : 'Delete every message?'}
        message={
          namespace
            ? `The ${plural(list.total, 'captured message')} of namespace ${namespace} and the recipient records of its addresses will be deleted, including their files. Other namespaces stay. This cannot be undone.`
            : filtered
              ? 'Every captured message in the sandbox will be deleted, including their files, not only the ones this search shows. This cannot be undone.'
              : `All ${plural(list.total, 'captured message')} will be deleted from the sandbox, including their files. This cannot be undone.`
        }
        confirmLabel={namespace ? 'Delete namespace' : 'Delete all'}
        onConfirm={() => void clearAll()}
        onCancel={() => setConfirmClear(false)}
      />
    </div>
  );
}
