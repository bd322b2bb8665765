import { useMemo, useState } from 'preact/hooks';
import { displayName, emailAddress, fileSize, fullTime } from '../../format.ts';
import type { MessageDetail } from '../../types.ts';
import { Badge, MessageBadges } from '../badges/badges.tsx';
import styles from './message-header.module.css';
import { ReleaseDialog } from './release-dialog.tsx';

/** Gmail clips the HTML of a message past 102 KB. */
const GMAIL_CLIP_BYTES = 102 * 1024;

interface Props {
  message: MessageDetail;
  deleted: boolean;
  onBack: () => void;
  onToggleRead: () => void;
  onDelete: () => void;
}

/**
 * The message's header, compact so the email gets the screen: the subject and the actions on one
 * line, who, to whom and when on a second, the full addresses behind "Details".
 */
export function MessageHeader({ message, deleted, onBack, onToggleRead, onDelete }: Props) {
  const [open, setOpen] = useState(false);
  const [releasing, setReleasing] = useState(false);
  const to = message.to.join(', ') || message.recipient;
  return (
    <header class={styles.messageHeader}>
      <div class={styles.headRow}>
        <button type="button" class={`button ghost ${styles.back}`} onClick={onBack} aria-label="Back to the list" title="Back (Esc)">
          ←
        </button>
        {/* Every text of the sender's isolated for direction (issue 27 #6), in place at the start edge. */}
        <h2 id="message-subject" class={styles.messageSubject}>
          <bdi>{message.subject || '(no subject)'}</bdi>
        </h2>
        <div class={styles.messageActions}>
          <button type="button" class="button ghost" onClick={onToggleRead}>
            {message.read ? 'Mark unread' : 'Mark read'}
          </button>
          <a class="button ghost" href={`${message.raw_url}?download`} download={`${message.id}.eml`} aria-label="Download .eml">
            <span class="wide-only">Download .eml</span>
            <span class="narrow-only">.eml</span>
          </a>
          <button type="button" class="button ghost" onClick={() => setReleasing(true)} title="Relay it to a real inbox" aria-label="Send to…">
            <span class="wide-only">Send to…</span>
            <span class="narrow-only">Send…</span>
          </button>
          <button type="button" class="button danger" onClick={onDelete} title="Delete (Del)">
            Delete
          </button>
        </div>
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
      <div class={styles.summaryRow}>
        <button type="button" class={`link-button ${styles.detailsToggle}`} aria-expanded={open} aria-controls="message-details" onClick={() => setOpen(!open)}>
          {open ? 'Hide details' : 'Details'}
        </button>
        <span class={styles.summary}>
          <span data-testid="meta-from">
            <strong>
              <bdi>{displayName(message.from)}</bdi>
            </strong>{' '}
            {displayName(message.from) !== message.from ? (
              <span class="muted">
                &lt;<bdi>{emailAddress(message.from)}</bdi>&gt;
              </span>
            ) : null}
          </span>
          <span class="muted"> to </span>
          <bdi>{to}</bdi>
          <span class="muted"> · </span>
          <time class="muted" dateTime={message.created_at}>
            {fullTime(message.created_at)}
          </time>
        </span>
        <MessageBadges message={message} />
        <SizeLine message={message} />
      </div>
      {open ? (
        <dl id="message-details" class={styles.messageMeta}>
          <dt>From</dt>
          <dd>
            <bdi>{message.from}</bdi>
          </dd>
          <dt>To</dt>
          <dd>
            <bdi>{to}</bdi>
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
          {message.template_version != null ? (
            <>
              <dt>Template</dt>
              <dd>version {message.template_version}</dd>
            </>
          ) : null}
        </dl>
      ) : null}
      <ReleaseDialog id={message.id} open={releasing} onClose={() => setReleasing(false)} />
    </header>
  );
}

/** The HTML's size, and Gmail's clipping, without opening the Check tab. */
function SizeLine({ message }: { message: MessageDetail }) {
  const bytes = useMemo(() => (message.html === null ? 0 : new TextEncoder().encode(message.html).length), [message.html]);
  if (message.html === null) return null;
  return (
    <span class={`${styles.sizeLine} small`} data-testid="size-line">
      <span class="muted">HTML {fileSize(bytes)}</span>
      {bytes > GMAIL_CLIP_BYTES ? (
        <Badge tone="bad" title={`Gmail shows only the first ${fileSize(GMAIL_CLIP_BYTES)} of the HTML, then "[Message clipped]"`}>
          Clipped by Gmail (over {GMAIL_CLIP_BYTES / 1024} KB)
        </Badge>
      ) : (
        <span class="muted"> · not clipped by Gmail</span>
      )}
    </span>
  );
}
