import { wireTime } from '../domain/flows/clock.ts';
import type { ClockState } from '../domain/flows/clock.ts';
import type { Sandbox } from '../domain/sandbox.ts';
import { clockBody } from '../http/api/clock-routes.ts';
import { subscriptionSummary } from '../http/api/subscription-routes.ts';
import { messageSummary, recipientItem } from '../http/api/wire.ts';
import type { MessageRecord, RecipientRecord, SubscriptionRecord } from '../storage/records.ts';
import type { FrameMappers } from './realtime.ts';

/** The hello frame's data: the sandbox clock, how many captures there are, and the SMTP port to show in the getting-started help. */
export const helloFrame = (sandbox: Sandbox, smtpPort: () => number | null) => () => ({
  server_time: wireTime(sandbox.clock.now()),
  total: sandbox.messages.count(),
  smtp_port: smtpPort(),
});

/** The frames README documents, each in the sandbox API's shape for the same thing. */
export function domainFrames(sandbox: Sandbox): FrameMappers {
  return {
    'message.created': (m: MessageRecord) => messageSummary(m),
    'message.status': (m: MessageRecord) => messageSummary(m),
    'message.updated': (m: MessageRecord) => messageSummary(m),
    'message.deleted': (removed: MessageRecord[]) => ({ ids: removed.map((m) => m.id) }),
    'message.cleared': (count: number) => ({ count }),
    'recipient.changed': (r: RecipientRecord) => recipientItem(r, sandbox.blocks),
    'subscription.changed': (s: SubscriptionRecord) => subscriptionSummary(sandbox, s),
    'subscription.removed': (s: SubscriptionRecord) => ({ id: s.seq }),
    'clock.changed': (state: ClockState) => clockBody(state),
    'sandbox.reset': (reset: { team: string | null; removed: Record<string, number> }) => reset,
  };
}
