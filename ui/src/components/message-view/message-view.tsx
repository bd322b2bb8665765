import { useEffect, useState } from 'preact/hooks';
import { notFound, reason, sandbox } from '../../sandbox.ts';
import { afterUserActs } from '../../state/arrival.ts';
import { useLoad } from '../../state/hooks.ts';
import type { Inbox } from '../../state/inbox.ts';
import type { MessageViewState } from '../../state/message-view-state.ts';
import type { MessageTab } from '../../state/view-url.ts';
import type { MessageDetail } from '../../types.ts';
import { CheckPanel } from '../check/check-panel.tsx';
import { useNotices } from '../notices/notices.tsx';
import { HtmlPart } from './html-part.tsx';
import { MessageHeader } from './message-header.tsx';
import { AttachmentsPart, HeadersPart, RecordPart, SourcePart, TextPart } from './message-parts.tsx';
import styles from './message-view.module.css';

interface Props {
  id: string;
  inbox: Inbox;
  /** The tab, width and mode chosen last: they stay from one message to the next, and are in the URL. */
  view: MessageViewState;
  onView: (patch: Partial<MessageViewState>) => void;
  onBack: () => void;
  onDelete: (id: string) => void;
}

/** One capture: its header, actions and the tabs (HTML, text, headers, source, files, record). */
export function MessageView({ id, inbox, view, onView, onBack, onDelete }: Props) {
  const chosenTab = view.tab;
  const setTab = (tab: MessageTab) => onView({ tab });
  const notices = useNotices();
  const [tick, setTick] = useState(0);
  const loaded = useLoad((signal) => sandbox.get(id, { signal }), [id, tick]);
  const [message, setMessage] = useState<MessageDetail | null>(null);
  const [deleted, setDeleted] = useState(false);
  // The check finding a client view's removal pointed at, opened in the Check tab.
  const [finding, setFinding] = useState<string | null>(null);
  useEffect(() => {
    setDeleted(false);
    setFinding(null);
  }, [id]);

  /** Marks the message read or unread on the server; on failure says so and shows the list as it is. */
  const setRead = async (messageId: string, read: boolean): Promise<boolean> => {
    const key = `read:${messageId}`;
    try {
      await sandbox.setRead(messageId, read);
      notices.succeeded(key);
      return true;
    } catch (error) {
      notices.fail(key, read ? 'Could not mark the message as read.' : 'Could not mark the message as unread.', error);
      inbox.list.invalidate();
      return false;
    }
  };

  useEffect(() => {
    const data = loaded.data;
    setMessage(data ?? null);
    if (!data || data.read) return;
    // Opening a message marks it read, here at once (the button says "Mark unread" without
    // waiting for the server's message.updated frame), in the list, and on the server; when
    // another site opened the inbox, only once the user clicks or presses a key in it.
    return afterUserActs(() => {
      setMessage((m) => (m && m.id === data.id ? { ...m, read: true } : m));
      inbox.list.patch({ ...data, read: true });
      void setRead(data.id, true).then((stored) => {
        if (!stored) setMessage((m) => (m && m.id === data.id ? { ...m, read: false } : m));
      });
    });
  }, [loaded.data]);

  useEffect(
    () =>
      inbox.onFrame((frame) => {
        if ((frame.type === 'message.status' || frame.type === 'message.updated') && frame.data.id === id) setMessage((m) => (m ? { ...m, ...frame.data } : m));
        else if (frame.type === 'message.deleted' && frame.data.ids.includes(id)) setDeleted(true);
        else if (frame.type === 'message.cleared') setDeleted(true);
        else if (frame.type === 'reconnected') setTick((t) => t + 1);
      }),
    [inbox, id],
  );

  if (loaded.error) {
    const gone = notFound(loaded.error);
    return (
      <div class="view-empty" role="status">
        <p>{gone ? 'This message does not exist (it may have been deleted).' : `Could not load the message: ${reason(loaded.error)}`}</p>
        <button type="button" class="button" onClick={onBack}>
          Back to the inbox
        </button>
      </div>
    );
  }
  if (!message) return <div class="view-empty muted">Loading…</div>;

  const toggleRead = async () => {
    const read = !message.read;
    setMessage({ ...message, read });
    inbox.list.patch({ ...message, read });
    if (!(await setRead(message.id, read))) setMessage((m) => (m && m.id === message.id ? { ...m, read: !read } : m));
  };
  // A message without HTML shows its text where the HTML tab was chosen.
  const tab: MessageTab = chosenTab === 'html' && !message.html ? 'text' : chosenTab;
  const tabs: { id: MessageTab; label: string; disabled?: boolean }[] = [
    { id: 'html', label: 'HTML', disabled: !message.html },
    { id: 'text', label: 'Text' },
    { id: 'headers', label: 'Headers' },
    { id: 'raw', label: 'Source' },
    { id: 'attachments', label: `Attachments${message.attachment_count ? ` (${message.attachment_count})` : ''}` },
    { id: 'record', label: 'API record' },
    { id: 'check', label: 'Check' },
  ];

  return (
    <article class={styles.messageView} aria-labelledby="message-subject">
      <MessageHeader message={message} deleted={deleted} onBack={onBack} onToggleRead={toggleRead} onDelete={() => onDelete(message.id)} />
      <div
        class={styles.tabs}
        role="tablist"
        aria-label="Message parts"
        onKeyDown={(e) => {
          // Left/Right move between the tabs (the ARIA tabs pattern).
          if (e.key !== 'ArrowLeft' && e.key !== 'ArrowRight') return;
          const enabled = tabs.filter((t) => !t.disabled);
          const at = enabled.findIndex((t) => t.id === tab);
          const next = enabled[(at + (e.key === 'ArrowRight' ? 1 : enabled.length - 1)) % enabled.length]!;
          e.preventDefault();
          setTab(next.id);
          document.getElementById(`tab-${next.id}`)?.focus();
        }}
      >
        {tabs.map((t) => (
          <button
            type="button"
            role="tab"
            key={t.id}
            id={`tab-${t.id}`}
            aria-selected={tab === t.id}
            aria-controls="message-panel"
            tabIndex={tab === t.id ? 0 : -1}
            disabled={t.disabled}
            onClick={() => setTab(t.id)}
          >
            {t.label}
          </button>
        ))}
      </div>
      {/* biome-ignore lint/a11y/noNoninteractiveTabindex: focusable, as the ARIA tabs pattern has it: the panel scrolls, and a part with no control in it (the API record, a long source) is otherwise out of a keyboard's reach (axe: scrollable-region-focusable). */}
      <div id="message-panel" class={styles.tabPanel} role="tabpanel" aria-labelledby={`tab-${tab}`} tabIndex={0}>
        {tab === 'html' && message.html ? (
          <HtmlPart
            message={message}
            view={view}
            onView={onView}
            onFinding={(f) => {
              setFinding(f);
              setTab('check');
            }}
          />
        ) : null}
        {tab === 'text' ? <TextPart message={message} /> : null}
        {tab === 'headers' ? <HeadersPart message={message} /> : null}
        {tab === 'raw' ? <SourcePart message={message} /> : null}
        {tab === 'attachments' ? <AttachmentsPart message={message} /> : null}
        {tab === 'record' ? <RecordPart message={message} /> : null}
        {tab === 'check' ? <CheckPanel message={message} finding={finding} /> : null}
      </div>
    </article>
  );
}
