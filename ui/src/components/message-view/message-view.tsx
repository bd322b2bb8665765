import { useEffect, useMemo, useState } from 'preact/hooks';
import { displayName, emailAddress, fileSize, fullTime } from '../../format.ts';
import { htmlUrl, notFound, reason, sandbox } from '../../sandbox.ts';
import { afterUserActs } from '../../state/arrival.ts';
import { useLoad } from '../../state/hooks.ts';
import type { Inbox } from '../../state/inbox.ts';
import type { MessageDetail } from '../../types.ts';
import { Badge, MessageBadges } from '../badges/badges.tsx';
import { CheckPanel } from '../check/check-panel.tsx';
import { ColorModeSwitch } from '../preview/color-mode.tsx';
import { systemPrefersDark, type ColorMode } from '../preview/dark-preview.ts';
import { AttachmentsPart, HeadersPart, RecordPart, SourcePart, TextPart } from './message-parts.tsx';
import { useNotices } from '../notices/notices.tsx';
import { PreviewFrame, WidthSwitch, type PreviewWidth } from '../preview/preview-frame.tsx';
import styles from './message-view.module.css';

export type MessageTab = 'html' | 'text' | 'headers' | 'raw' | 'attachments' | 'record' | 'check';

/** Gmail clips the HTML of a message past 102 KB. */
const GMAIL_CLIP_BYTES = 102 * 1024;

interface Props {
  id: string;
  inbox: Inbox;
  width: PreviewWidth;
  onWidth: (width: PreviewWidth) => void;
  /** The tab chosen last: it stays chosen from one message to the next. */
  tab: MessageTab;
  onTab: (tab: MessageTab) => void;
  onBack: () => void;
  onDelete: (id: string) => void;
}

/** One capture: its header, actions and the tabs (HTML, text, headers, source, files, record). */
export function MessageView({ id, inbox, width, onWidth, tab: chosenTab, onTab: setTab, onBack, onDelete }: Props) {
  const notices = useNotices();
  const [tick, setTick] = useState(0);
  const loaded = useLoad((signal) => sandbox.get(id, { signal }), [id, tick]);
  const [message, setMessage] = useState<MessageDetail | null>(null);
  const [deleted, setDeleted] = useState(false);
  const [remote, setRemote] = useState(false);
  // The preview starts as the system is: dark styles apply on a dark system, as in Apple Mail.
  const [colorMode, setColorMode] = useState<ColorMode>(() => (systemPrefersDark() ? 'styles' : 'light'));
  // Every mode is the server's page, rewritten there for the mode, under its policy header
  // (issue 28: a policy placed in the markup can be placed where the browser does not read it).
  const previewUrl = htmlUrl(id, remote, colorMode);

  useEffect(() => {
    setDeleted(false);
    setRemote(false);
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
      <header class={styles.messageHeader}>
        <div class={styles.messageActions}>
          <button type="button" class={`button ghost ${styles.back}`} onClick={onBack} aria-label="Back to the list" title="Back (Esc)">
            ←
          </button>
          <span class={styles.spacer} />
          <button type="button" class="button ghost" onClick={toggleRead}>
            {message.read ? 'Mark unread' : 'Mark read'}
          </button>
          <a class="button ghost" href={`${message.raw_url}?download`} download={`${message.id}.eml`} aria-label="Download .eml">
            <span class="wide-only">Download .eml</span>
            <span class="narrow-only">.eml</span>
          </a>
          <button type="button" class="button danger" onClick={() => onDelete(message.id)} title="Delete (Del)">
            Delete
          </button>
        </div>
        {deleted ? (
          <p class="banner warn" role="status">
            This message has been deleted.
          </p>
        ) : null}
        {message.blocked_note ? (
          <p class={`banner error ${styles.blockedNote}`} data-testid="blocked-note">
            {message.blocked_note}
          </p>
        ) : null}
        {/* Every text of the sender's isolated for direction (issue 27 #6), in place at the start edge. */}
        <h2 id="message-subject" class={styles.messageSubject}>
          <bdi>{message.subject || '(no subject)'}</bdi>
        </h2>
        <dl class={styles.messageMeta}>
          <dt>From</dt>
          <dd data-testid="meta-from">
            <strong>
              <bdi>{displayName(message.from)}</bdi>
            </strong>{' '}
            {displayName(message.from) !== message.from ? (
              <span class="muted">
                &lt;<bdi>{emailAddress(message.from)}</bdi>&gt;
              </span>
            ) : null}
          </dd>
          <dt>To</dt>
          <dd>
            <bdi>{message.to.join(', ') || message.recipient}</bdi>
            {message.redirected ? (
              <span class="muted">
                {' '}
                (originally to <bdi>{message.recipient}</bdi>)
              </span>
            ) : null}
          </dd>
          {message.cc.length ? (
            <>
              <dt>Cc</dt>
              <dd>
                <bdi>{message.cc.join(', ')}</bdi>
              </dd>
            </>
          ) : null}
          {message.bcc.length ? (
            <>
              <dt>Bcc</dt>
              <dd>
                <bdi>{message.bcc.join(', ')}</bdi>
              </dd>
            </>
          ) : null}
          <dt>Date</dt>
          <dd>
            <time dateTime={message.created_at}>{fullTime(message.created_at)}</time>
          </dd>
        </dl>
        <MessageBadges message={message} />
        <SizeLine message={message} />
      </header>
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
          <>
            <div class="part-toolbar">
              <WidthSwitch value={width} onChange={onWidth} />
              <ColorModeSwitch value={colorMode} onChange={setColorMode} />
              <label class="toggle">
                <input type="checkbox" checked={remote} onChange={(e) => setRemote((e.target as HTMLInputElement).checked)} />
                Load remote content
              </label>
              <a class="button ghost small" href={previewUrl} target="_blank" rel="noopener noreferrer">
                Open in new tab
              </a>
              <span class="muted small">
                {message.has_remote_content === false
                  ? 'This email has no remote content.'
                  : remote
                    ? 'Remote images, styles and fonts are loaded.'
                    : 'Remote images, styles and fonts are blocked.'}
              </span>
            </div>
            <PreviewFrame title={previewTitle(colorMode)} width={width} src={previewUrl} dark={colorMode === 'light' ? undefined : colorMode} />
          </>
        ) : null}
        {tab === 'text' ? <TextPart message={message} /> : null}
        {tab === 'headers' ? <HeadersPart message={message} /> : null}
        {tab === 'raw' ? <SourcePart message={message} /> : null}
        {tab === 'attachments' ? <AttachmentsPart message={message} /> : null}
        {tab === 'record' ? <RecordPart message={message} /> : null}
        {tab === 'check' ? <CheckPanel message={message} /> : null}
      </div>
    </article>
  );
}

function previewTitle(mode: ColorMode): string {
  return mode === 'light' ? 'HTML preview' : `HTML preview, ${mode === 'styles' ? "dark (the email's own styles)" : 'dark (inverted)'}`;
}

/** The HTML's size, and Gmail's clipping, without opening the Check tab. */
function SizeLine({ message }: { message: MessageDetail }) {
  const bytes = useMemo(() => (message.html === null ? 0 : new TextEncoder().encode(message.html).length), [message.html]);
  if (message.html === null) return null;
  return (
    <p class={`${styles.sizeLine} small`} data-testid="size-line">
      <span class="muted">HTML {fileSize(bytes)}</span>
      {bytes > GMAIL_CLIP_BYTES ? (
        <Badge tone="bad" title={`Gmail shows only the first ${fileSize(GMAIL_CLIP_BYTES)} of the HTML, then "[Message clipped]"`}>
          Clipped by Gmail (over {GMAIL_CLIP_BYTES / 1024} KB)
        </Badge>
      ) : (
        <span class="muted"> · not clipped by Gmail</span>
      )}
    </p>
  );
}
