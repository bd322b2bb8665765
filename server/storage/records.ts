/** The shapes kept on disk. Field names are ours (camelCase); wire names are mapped in http/. */

export type Source = 'api' | 'smtp' | 'flow';
export type DeliveryStatus = 'pending' | 'delivered' | 'bounced' | 'complained' | 'failed';
export type SubscriptionStatus = 'active' | 'completed' | 'cancelled';

export interface AttachmentRecord {
  /** File name inside the message's blob folder. */
  blob: string;
  filename: string;
  contentType: string;
  size: number;
  /** Content-ID for inline parts (cid: references), when the sender gave one. */
  contentId?: string;
}

export interface MessageRecord {
  seq: number;
  /** The id the API returned (Sqids of seq). */
  id: string;
  source: Source;
  team: string | null;
  sender: string | null;
  from: string;
  /** The address the sender asked for (first of `to` for SMTP). */
  recipient: string;
  /** Where the capture went: after a Development Mode redirect, the development address. */
  to: string[];
  cc: string[];
  bcc: string[];
  subject: string;
  firstName: string | null;
  lastName: string | null;
  flags: string[];
  /** Whether the sender's account template wrapped the body. */
  usedTemplate: boolean;
  redirected: boolean;
  blocked: boolean;
  status: DeliveryStatus;
  /** When a pending status turns into its outcome (sandbox clock). */
  deliverAt: string | null;
  outcome: DeliveryStatus;
  sesId: string;
  /** The /v1 record body is encrypted at rest (Encryption-Key, api-contract.md §3). */
  encrypted: boolean;
  hasHtml: boolean;
  hasText: boolean;
  attachments: AttachmentRecord[];
  /** The start of the body text, for list previews and search (absent on older captures). */
  snippet?: string;
  flow: { trigger: string; step: number } | null;
  read: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface RecipientRecord {
  seq: number;
  sqid: string;
  team: string;
  email: string;
  firstName: string;
  lastName: string;
  flags: string[];
  hasBeenSentEmail: boolean;
  createdAt: string;
  updatedAt: string;
}

export interface SubscriptionRecord {
  seq: number;
  team: string;
  flowTrigger: string;
  flowName: string;
  email: string;
  status: SubscriptionStatus;
  currentStepOrder: number;
  nextSendDate: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface BlockRecord {
  team: string;
  email: string;
  reason: 'bounce' | 'complaint' | 'manual';
  createdAt: string;
}

export interface MetaData {
  version: 1;
  counters: { message: number; recipient: number; subscription: number };
  /** Emails each sender created through the API on `day` (UTC, sandbox clock). */
  daily: { day: string; bySender: Record<string, number> };
}

export interface BlocksData {
  blocks: BlockRecord[];
}
