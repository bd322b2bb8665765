import type { Frame, FrameData } from '../../client/pigeonhole-client.ts';
import type { MessageRecord, RecipientRecord, SubscriptionRecord } from '../domain/entities.ts';
import type { DeletedCapture, DomainEvents } from '../domain/events.ts';
import type { ClockState } from '../domain/time/clock.ts';
import type { Sandbox } from '../domain/sandbox.ts';
import { clockBody, helloBody, messageSummary, recipientItem, subscriptionSummary } from '../api-representations.ts';
import type { FrameMappers } from './realtime.ts';

/** The hello frame's data: the sandbox clock, how many captures there are, and the SMTP port to show in the getting-started help. */
export const helloFrame = (sandbox: Sandbox, smtpPort: () => number | null) => (): FrameData<'hello'> =>
  helloBody(sandbox.clock.now(), sandbox.messages.count(), smtpPort());

/**
 * Each pushed domain event's frame data, typed by the wire's Frame union (generated from the
 * Frame schema in server/http/openapi/schemas.ts into the typed client, with the data schemas
 * the sandbox API answers with).
 */
type Mappers = { [T in Exclude<Frame['type'], 'hello'>]: (...args: DomainEvents[T]) => FrameData<T> };

/** The frames docs/live-push.md documents, each in the sandbox API's shape for the same thing. */
export function domainFrames(sandbox: Sandbox): FrameMappers {
  const mappers: Mappers = {
    'message.created': (m: MessageRecord) => messageSummary(m, sandbox.blocks),
    'message.status': (m: MessageRecord) => messageSummary(m, sandbox.blocks),
    'message.updated': (m: MessageRecord) => messageSummary(m, sandbox.blocks),
    'message.deleted': (removed: DeletedCapture[]) => ({ ids: removed.map((m) => m.id) }),
    'message.cleared': (count: number) => ({ count }),
    'recipient.changed': (r: RecipientRecord) => recipientItem(r, sandbox.blocks),
    'subscription.changed': (s: SubscriptionRecord) => subscriptionSummary(sandbox.subscriptions, s),
    'subscription.removed': (s: SubscriptionRecord) => ({ id: s.seq }),
    'clock.changed': (state: ClockState) => clockBody(state),
    'template.changed': (change: { sender: string; version: number }) => change,
    'template_file.changed': (change: { name: string; removed: boolean }) => change,
    'sandbox.reset': (reset: { team: string | null; namespace: string | null; removed: Record<string, number> }) => reset,
  };
  return mappers;
}
