import { z } from 'zod';
import { DeliveryStatus, SubscriptionStatus, int, time } from './wire-basics.ts';

/** The /v1 representations (docs/api-contract.md), as http/v1/representations.ts builds them. Part of the wire's schemas (schemas.ts). */

export const EmailId = z
  .object({
    id: z.string().describe('Short Sqids id, e.g. "JDT".'),
    error: z.string().optional().describe('Only for a blocked recipient: "Recipient is blocked".'),
  })
  .meta({ id: 'EmailId' });
const EmailListItem = z
  .object({ recipient: z.string(), subject: z.string(), created_on: time('ISO-8601 UTC, whole seconds, Z.') })
  .meta({ id: 'EmailListItem' });
const pageLinks = { count: int(), next: z.string().meta({ format: 'uri' }).nullable(), previous: z.string().meta({ format: 'uri' }).nullable() };
export const EmailList = z.object({ ...pageLinks, results: z.array(EmailListItem) }).meta({ id: 'EmailList' });
export const EmailDetail = z
  .object({
    recipient: z.string(),
    subject: z.string(),
    created_on: time('Creation time.'),
    body: z.string().describe('HTML as delivered, or enc:v1:<base64> when encrypted and no Encryption-Key was given.'),
  })
  .meta({ id: 'EmailDetail' });
export const Delivery = z.object({ id: z.string(), status: DeliveryStatus, ses_id: z.string().describe('SES-style message id.') }).meta({ id: 'Delivery' });
export const Subscribed = z.object({ detail: z.string(), subscription_id: int() }).meta({ id: 'Subscribed' });
export const V1Subscription = z
  .object({
    id: int(),
    flow_name: z.string(),
    flow_trigger: z.string(),
    recipient_email: z.string(),
    status: SubscriptionStatus,
    current_step_order: int(),
    next_send_date: time('Null unless active.').nullable(),
    created_at: time('Creation time.'),
    updated_at: time('Last change.'),
  })
  .meta({ id: 'Subscription' });
export const V1Recipient = z
  .object({
    sqid: z.string(),
    email: z.string(),
    first_name: z.string(),
    last_name: z.string(),
    flags: z.array(z.string()),
    has_been_sent_email: z.boolean(),
    created_at: time('Creation time.'),
    updated_at: time('Last change.'),
  })
  .meta({ id: 'Recipient' });
export const V1RecipientList = z.object({ ...pageLinks, results: z.array(V1Recipient) }).meta({ id: 'RecipientList' });
export const FlagsMessage = z.object({ message: z.string() }).meta({ id: 'Message' });
