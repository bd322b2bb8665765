import { wireTime } from '../../api-representations.ts';
import type { MessageRecord, RecipientRecord, SubscriptionRecord } from '../../domain/entities.ts';

/** The service's snake_case representations, each mapped in this one place. */

export const emailListItem = (m: MessageRecord) => ({
  recipient: m.recipient,
  subject: m.subject,
  created_on: wireTime(m.createdAt),
});

export const recipientBody = (r: RecipientRecord) => ({
  sqid: r.sqid,
  email: r.email,
  first_name: r.firstName,
  last_name: r.lastName,
  flags: r.flags,
  has_been_sent_email: r.hasBeenSentEmail,
  created_at: wireTime(r.createdAt),
  updated_at: wireTime(r.updatedAt),
});

export const subscriptionBody = (s: SubscriptionRecord) => ({
  id: s.seq,
  flow_name: s.flowName,
  flow_trigger: s.flowTrigger,
  recipient_email: s.email,
  status: s.status,
  current_step_order: s.currentStepOrder,
  next_send_date: s.status === 'active' && s.nextSendDate !== null ? wireTime(s.nextSendDate) : null,
  created_at: wireTime(s.createdAt),
  updated_at: wireTime(s.updatedAt),
});
