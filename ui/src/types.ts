/** Wire shapes of the sandbox API (/api), as plan.md gives them: snake_case, ISO times. */

// The capture summary is the typed client's (one definition of the wire shape for both).
export type { DeliveryStatus, MessageSummary, Source } from '../../client/pigeonhole-client.ts';
import type { DeliveryStatus, MessageSummary, Source, LinkCheckResult } from '../../client/pigeonhole-client.ts';
export type { CheckPlatform, CheckReport, ClientSupport, CompatibilityWarning, EmailClient, LinkCheckResult } from '../../client/pigeonhole-client.ts';

/** One line of the link check's stream. */
export type LinkEvent =
  | { type: 'start'; total: number; skipped: number }
  | ({ type: 'link' } & LinkCheckResult)
  | { type: 'done'; total: number; broken: number; skipped: number };

export interface Attachment {
  filename: string;
  content_type: string;
  size: number;
  content_id: string | null;
  url: string;
}

export interface MessageDetail extends MessageSummary {
  first_name?: string | null;
  last_name?: string | null;
  flags?: string[];
  used_template?: boolean;
  ses_id?: string | null;
  encrypted?: boolean;
  flow?: { trigger: string; step: number; flow_name?: string; step_name?: string } | null;
  html: string | null;
  /** The plain part, or the HTML rendered as text when there is none (then `text_derived`). */
  text: string | null;
  text_derived?: boolean;
  /** Links and one-time codes found in the bodies (the sandbox's one extraction). */
  links?: { href: string; text: string }[];
  codes?: string[];
  /** The HTML refers to images, styles or fonts on other hosts (blocked in the preview by default). */
  has_remote_content?: boolean;
  headers?: { name: string; value: string }[];
  raw_url: string;
  attachments: Attachment[];
}

export interface Page {
  total: number;
  offset: number;
  limit: number;
  messages: MessageSummary[];
}

export interface MessageFilter {
  q?: string;
  source?: Source;
  status?: DeliveryStatus;
  blocked?: boolean;
  redirected?: boolean;
  read?: boolean;
}

export interface Sender {
  team: string;
  team_name: string;
  id: string;
  name: string;
  email: string;
  api_key: string;
  development_mode: boolean;
  development_recipient: string | null;
  daily_limit: number | null;
  has_account_template: boolean;
  revoked: boolean;
}

export interface Recipient {
  team: string;
  email: string;
  first_name: string | null;
  last_name: string | null;
  flags: string[];
  blocked: boolean;
  block_reason: string | null;
  has_been_sent_email: boolean;
  created_at: string;
  updated_at: string;
}

export type StepState = 'done' | 'current' | 'pending' | 'skipped';

export interface Subscription {
  id: number;
  team: string;
  trigger: string;
  flow_name: string;
  email: string;
  status: string;
  current_step_order: number | null;
  next_send_date: string | null;
  created_at: string;
  updated_at: string;
  steps: { order: number; name: string | null; type: string; state: StepState; summary: string }[];
}

export interface Clock {
  now: string;
  offset_ms: number;
  real_time: boolean;
}

/** Frames pushed on the /api/events WebSocket. */
export type Frame =
  | { type: 'hello'; data: { server_time: string; total: number; smtp_port?: number } }
  | { type: 'message.created' | 'message.status' | 'message.updated'; data: MessageSummary }
  | { type: 'message.deleted'; data: { ids: string[] } }
  | { type: 'message.cleared'; data: { count: number } }
  | { type: 'recipient.changed'; data: Recipient }
  | { type: 'subscription.changed'; data: Subscription }
  | { type: 'subscription.removed'; data: { id: number } }
  | { type: 'clock.changed'; data: { now: string; offset_ms: number } }
  | { type: 'sandbox.reset'; data: { team: string | null; removed: Record<string, number> } };
