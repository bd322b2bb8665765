import { EventEmitter } from 'node:events';
import type { ClockState } from './time/clock.ts';
import type { MessageRecord, RecipientRecord, SubscriptionRecord } from './entities.ts';

/** A deleted capture, as `message.deleted` names it (its record is gone by then). */
export interface DeletedCapture {
  seq: number;
  id: string;
}

/** What the domain announces; realtime push and metrics subscribe, the domain never waits on them. */
export interface DomainEvents {
  'message.created': [MessageRecord];
  'message.status': [MessageRecord];
  /** Read state or another inbox-only field changed. */
  'message.updated': [MessageRecord];
  'message.deleted': [DeletedCapture[]];
  /** Everything was deleted; carries how many captures there were. */
  'message.cleared': [number];
  'recipient.changed': [RecipientRecord];
  'subscription.changed': [SubscriptionRecord];
  'subscription.removed': [SubscriptionRecord];
  /** The sandbox was reset (one team or all): what each part removed. */
  'sandbox.reset': [{ team: string | null; namespace: string | null; removed: Record<string, number> }];
  /** A sender's account template was saved or reverted: the version now in use (0: the configured one). */
  'template.changed': [{ sender: string; version: number }];
  /** A file of the --templates folder was saved, created or removed (its name in the folder, `/` between folders). */
  'template_file.changed': [{ name: string; removed: boolean }];
  /** The sandbox clock was advanced, set or reset (after what fell due has run). */
  'clock.changed': [ClockState];
}

export class Events extends EventEmitter<DomainEvents> {}
