import type { DeliveryStatus, MessageSummary, Source } from '../types.ts';

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

export function SourceBadge({ source }: { source: Source }) {
  return <span class="badge tone-plain" title={`Captured from ${source.toUpperCase()}`}>{source === 'api' ? 'API' : source === 'smtp' ? 'SMTP' : 'Flow'}</span>;
}

/** The badges a capture row shows: what is special about it, at a glance. */
export function MessageBadges({ message }: { message: MessageSummary }) {
  return (
    <span class="badges">
      <SourceBadge source={message.source} />
      {message.blocked ? <span class="badge tone-bad">blocked</span> : null}
      {message.redirected ? (
        <span class="badge tone-info" title="Redirected by Development Mode">
          redirected
        </span>
      ) : null}
      {message.status !== 'delivered' && !message.blocked ? <StatusBadge status={message.status} /> : null}
      {message.attachment_count > 0 ? (
        <span class="badge tone-plain" title={`${message.attachment_count} attachment(s)`}>
          <span aria-hidden="true">📎</span> {message.attachment_count}
        </span>
      ) : null}
    </span>
  );
}
