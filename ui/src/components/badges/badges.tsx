import type { ComponentChildren } from 'preact';
import styles from './badges.module.css';
import type { DeliveryStatus, MessageSummary, Source } from '../../types.ts';

/** A badge's colour: plain and neutral are the quiet grey; the others say good, bad, a warning or a fact. */
export type Tone = 'plain' | 'neutral' | 'good' | 'bad' | 'warn' | 'info';

const TONE_CLASS: Record<Tone, string> = { plain: '', neutral: '', good: styles.good!, bad: styles.bad!, warn: styles.warn!, info: styles.info! };

/** A small pill of text (a status, a flag, a source). */
export function Badge({ tone, title, children }: { tone: Tone; title?: string; children: ComponentChildren }) {
  return (
    <span class={TONE_CLASS[tone] ? `${styles.badge} ${TONE_CLASS[tone]}` : styles.badge} title={title}>
      {children}
    </span>
  );
}

/** Badges side by side, wrapping. */
export function Badges({ children }: { children: ComponentChildren }) {
  return <span class={styles.badges}>{children}</span>;
}

const STATUS_TONE: Record<DeliveryStatus, Tone> = {
  pending: 'neutral',
  delivered: 'good',
  bounced: 'bad',
  complained: 'warn',
  failed: 'bad',
};

export function StatusBadge({ status }: { status: DeliveryStatus }) {
  return <Badge tone={STATUS_TONE[status] ?? 'neutral'}>{status}</Badge>;
}

function SourceBadge({ source }: { source: Source }) {
  return (
    <Badge tone="plain" title={`Captured from ${source.toUpperCase()}`}>
      {source === 'api' ? 'API' : source === 'smtp' ? 'SMTP' : 'Flow'}
    </Badge>
  );
}

/** The badges a capture row shows: what is special about it, at a glance. */
export function MessageBadges({ message }: { message: MessageSummary }) {
  return (
    <Badges>
      <SourceBadge source={message.source} />
      {message.namespace ? (
        <Badge tone="info" title={`Namespace ${message.namespace} (the +tag of an address)`}>
          +{message.namespace}
        </Badge>
      ) : null}
      {message.blocked ? <Badge tone="bad">blocked</Badge> : null}
      {message.redirected ? (
        <Badge tone="info" title="Redirected by Development Mode">
          redirected
        </Badge>
      ) : null}
      {message.status !== 'delivered' && !message.blocked ? <StatusBadge status={message.status} /> : null}
      {message.attachment_count > 0 ? (
        <Badge tone="plain" title={`${message.attachment_count} attachment(s)`}>
          <PaperclipIcon /> {message.attachment_count}
        </Badge>
      ) : null}
    </Badges>
  );
}

function PaperclipIcon() {
  return (
    <svg class={styles.icon} viewBox="0 0 16 16" aria-hidden="true">
      <path
        d="M10.5 4.5 5.6 9.4a1.4 1.4 0 0 0 2 2l5-5a2.8 2.8 0 0 0-4-4l-5 5a4.2 4.2 0 0 0 6 6l4.2-4.2"
        fill="none"
        stroke="currentColor"
        stroke-width="1.5"
        stroke-linecap="round"
      />
    </svg>
  );
}
