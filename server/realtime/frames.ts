import { wireTime } from '../domain/clock.ts';
import type { Sandbox } from '../domain/sandbox.ts';
import { messageSummary, recipientItem, subscriptionItem } from '../http/api/wire.ts';
import type { MessageRecord, RecipientRecord, SubscriptionRecord } from '../storage/records.ts';
import type { FrameMappers } from './realtime.ts';

/** The hello frame's data: the sandbox clock and how many captures there are. */
export const helloFrame = (sandbox: Sandbox) => () => ({ server_time: wireTime(sandbox.clock.now()), total: sandbox.messages.count() });

/** The frames README documents, each in the sandbox API's shape for the same thing. */
export function domainFrames(sandbox: Sandbox): FrameMappers {
  return {
    'message.created': (m: MessageRecord) => messageSummary(m),
    'message.status': (m: MessageRecord) => messageSummary(m),
    'message.updated': (m: MessageRecord) => messageSummary(m),
    'message.deleted': (removed: MessageRecord[]) => ({ ids: removed.map((m) => m.id) }),
    'message.cleared': (count: number) => ({ count }),
    'recipient.changed': (r: RecipientRecord) => recipientItem(r, sandbox.blocks),
    'subscription.changed': (s: SubscriptionRecord) => subscriptionItem(s),
    'subscription.removed': (s: SubscriptionRecord) => ({ id: s.seq }),
  };
}
