import { EventEmitter } from 'node:events';
import type { MessageRecord, RecipientRecord, SubscriptionRecord } from '../storage/records.ts';

/** What the domain announces; realtime push and metrics subscribe, the domain never waits on them. */
export interface DomainEvents {
  'message.created': [MessageRecord];
  'message.status': [MessageRecord];
  'recipient.changed': [RecipientRecord];
  'subscription.changed': [SubscriptionRecord];
  'subscription.removed': [SubscriptionRecord];
}

export class Events extends EventEmitter<DomainEvents> {}
