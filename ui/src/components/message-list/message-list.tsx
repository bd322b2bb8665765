import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks';
import { displayName, shortTime } from '../../format.ts';
import { messageHref } from '../../state/route.ts';
import type { MessageWindow } from '../../state/message-window.ts';
import type { MessageSummary } from '../../types.ts';
import { MessageBadges } from '../badges/badges.tsx';
import styles from './message-list.module.css';

/** Matches `.row { height }` in message-list.module.css. */
const ROW_HEIGHT = 78;
const OVERSCAN = 6;

interface Props {
  /** A class for the scroller, beside its own. */
  class?: string;
  list: MessageWindow;
  selected: number;
  onSelect: (index: number) => void;
}

/**
 * The capture list, virtualised: the scroll area is as tall as every capture, but only the rows
 * on screen are in the DOM and only the page around them is fetched from the server.
 */
export function MessageList({ class: extra, list, selected, onSelect }: Props) {
  const scroller = useRef<HTMLDivElement>(null);
  const frame = useRef(0);
  const anchor = useRef<{ id: string; index: number } | null>(null);
  const [viewport, setViewport] = useState({ top: 0, height: 800 });

  const measure = useCallback(() => {
    const el = scroller.current;
    if (!el) return;
    const first = Math.floor(el.scrollTop / ROW_HEIGHT);
    const count = Math.ceil(el.clientHeight / ROW_HEIGHT) + 1;
    setViewport({ top: el.scrollTop, height: el.clientHeight });
    list.setVisible(first, count);
    const top = list.at(first);
    anchor.current = top && el.scrollTop > 0 ? { id: top.id, index: first } : null;
  }, [list]);

  const onScroll = () => {
    cancelAnimationFrame(frame.current);
    frame.current = requestAnimationFrame(measure);
  };

  useEffect(() => {
    measure();
    const el = scroller.current;
    if (!el) return;
    const observer = new ResizeObserver(() => measure());
    observer.observe(el);
    return () => observer.disconnect();
  }, [measure]);

  // New captures arrive at the top: a reader scrolled down keeps the rows they were reading.
  useLayoutEffect(() => {
    const el = scroller.current;
    const held = anchor.current;
    if (!el || !held) return;
    const now = list.indexOf(held.id);
    if (now >= 0 && now !== held.index) {
      el.scrollTop += (now - held.index) * ROW_HEIGHT;
      anchor.current = { id: held.id, index: now };
    }
  });

  // Keyboard selection scrolls its row into view.
  useEffect(() => {
    const el = scroller.current;
    if (!el || selected < 0) return;
    const top = selected * ROW_HEIGHT;
    if (top < el.scrollTop) el.scrollTop = top;
    else if (top + ROW_HEIGHT > el.scrollTop + el.clientHeight) el.scrollTop = top + ROW_HEIGHT - el.clientHeight;
  }, [selected]);

  const first = Math.max(0, Math.floor(viewport.top / ROW_HEIGHT) - OVERSCAN);
  const last = Math.min(list.total, Math.ceil((viewport.top + viewport.height) / ROW_HEIGHT) + OVERSCAN);
  const rows = [];
  for (let index = first; index < last; index++) {
    const message = list.at(index);
    rows.push(
      message ? (
        <Row key={message.id} index={index} total={list.total} message={message} selected={index === selected} onSelect={onSelect} />
      ) : (
        <div key={`placeholder-${index}`} class={`${styles.row} ${styles.placeholder}`} style={{ top: `${index * ROW_HEIGHT}px` }} aria-hidden="true">
          <span class={styles.skeleton} />
          <span class={`${styles.skeleton} ${styles.short}`} />
        </div>
      ),
    );
  }
  return (
    <div
      ref={scroller}
      class={extra ? `${styles.listScroller} ${extra}` : styles.listScroller}
      onScroll={onScroll}
      role="listbox"
      aria-label="Messages"
      aria-activedescendant={selected >= 0 ? `row-${selected}` : undefined}
      tabIndex={0}
    >
      <div class={styles.listSpacer} style={{ height: `${list.total * ROW_HEIGHT}px` }}>
        {rows}
      </div>
    </div>
  );
}

interface RowProps {
  index: number;
  total: number;
  message: MessageSummary;
  selected: boolean;
  onSelect: (index: number) => void;
}

function Row({ index, total, message, selected, onSelect }: RowProps) {
  const to = message.to.length > 0 ? message.to.join(', ') : message.recipient;
  return (
    <a
      id={`row-${index}`}
      href={messageHref(message.id)}
      class={[styles.row, message.read ? '' : styles.unread, selected ? styles.selected : ''].filter(Boolean).join(' ')}
      style={{ top: `${index * ROW_HEIGHT}px` }}
      role="option"
      aria-selected={selected}
      aria-posinset={index + 1}
      aria-setsize={total}
      data-id={message.id}
      tabIndex={-1}
      onClick={() => onSelect(index)}
    >
      <span class={styles.rowLine}>
        {message.read ? null : <span class={styles.unreadDot} role="img" aria-label="Unread" />}
        <span class={styles.rowFrom} title={message.from} dir="auto">
          {displayName(message.from)}
        </span>
        <time class={styles.rowTime} dateTime={message.created_at} title={new Date(message.created_at).toLocaleString()}>
          {shortTime(message.created_at)}
        </time>
      </span>
      {/* Subject and snippet each isolated, each cut at its own end: an Arabic subject keeps its
          greeting and its place at the row's start edge, read or not (issue 27 #6). */}
      <span class={styles.rowSubject}>
        <span class={styles.rowSubjectText} dir="auto">
          {message.subject || '(no subject)'}
        </span>
        {message.snippet ? (
          <>
            <span class={styles.rowSeparator}> — </span>
            <span class={styles.rowSnippet} dir="auto">
              {message.snippet}
            </span>
          </>
        ) : null}
      </span>
      <span class={styles.rowLine}>
        <span class={styles.rowTo} title={to}>
          To: <bdi>{to}</bdi>
        </span>
        <MessageBadges message={message} />
      </span>
    </a>
  );
}
