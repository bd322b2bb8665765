import type { DeliveryStatus, MessageSummary, Source } from '../../types.ts';

const STATUS_TONE: Record<DeliveryStatus, string> = {
  pending: 'neutral',
  delivered: 'good',
  bounced: 'bad',
  complained: 'warn',
  failed: 'bad',
};

export function StatusBadge({ status }: { status: DeliveryStatus }) {
  return <span class={`badge tone-${STATUS_TONE[status] ?? 'neutral'}`}>{status}</span>;
}

function SourceBadge({ source }: { source: Source }) {
  return (
    <span class="badge tone-plain" title={`Captured from ${source.toUpperCase()}`}>
      {source === 'api' ? 'API' : source === 'smtp' ? 'SMTP' : 'Flow'}
    </span>
  );
}

/** The badges a capture row shows: what is special about it, at a glance. */
export function MessageBadges({ message }: { message: MessageSummary }) {
  return (
    <span class="badges">
      <SourceBadge source={message.source} />
      {message.namespace ? (
        <span class="badge tone-info" title={`Namespace ${message.namespace} (the +tag of an address)`}>
          +{message.namespace}
        </span>
      ) : null}
      {message.blocked ? <span class="badge tone-bad">blocked</span> : null}
      {message.redirected ? (
        <span class="badge tone-info" title="Redirected by Development Mode">
          redirected
        </span>
      ) : null}
      {message.status !== 'delivered' && !message.blocked ? <StatusBadge status={message.status} /> : null}
      {message.attachment_count > 0 ? (
        <span class="badge tone-plain" title={`${message.attachment_count} attachment(s)`}>
          <PaperclipIcon /> {message.attachment_count}
        </span>
      ) : null}
    </span>
  );
}

function PaperclipIcon() {
  return (
    <svg class="icon" viewBox="0 0 16 16" aria-hidden="true">
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
