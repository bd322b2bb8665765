import { z } from 'zod';
import { DELIVERY_STATUSES, FORCED_STATUSES, SOURCES, SUBSCRIPTION_STATUSES } from '../../domain/entities.ts';

/** The schemas' helpers, the wire's enumerations and the error bodies of both APIs. Part of the wire's schemas (schemas.ts). */

export const time = (description?: string) => z.string().meta({ format: 'date-time', ...(description ? { description } : {}) });
export const int = () => z.number().int();

// The enumerations of the wire (the typed client gets the first four as a list and a type).

export const Source = z.enum(SOURCES).describe('How a capture arrived.');
export const DeliveryStatus = z.enum(DELIVERY_STATUSES).describe("A capture's delivery status.");
export const ForcedStatus = z.enum(FORCED_STATUSES).describe('The statuses a capture can be forced to (POST /api/messages/<id>/status).');
export const SubscriptionStatus = z.enum(SUBSCRIPTION_STATUSES).describe("A flow subscription's status.");
export const UnwrappedBody = z
  .enum(['kept', 'not_wrapped', 'not_kept'])
  .describe(
    'Whether the HTML body as the sender gave it, before the account template wrapped it, can be had. kept: stored beside the wrapped HTML; not_wrapped: no template wrapped it (the HTML is the body as sent); not_kept: wrapped by a template before Pigeonhole kept the body as sent (only the wrapped HTML exists).',
  );
export const BlockReason = z
  .enum(['config', 'bounce', 'complaint', 'manual', 'suppressed'])
  .describe("Why an address is blocked. config: the team's configured list; suppressed: a flow's suppress action.");
export const SmtpStage = z.enum(['connect', 'auth', 'mail', 'rcpt', 'data']);
export const StepState = z.enum(['done', 'current', 'pending', 'skipped']);
export const CheckPlatform = z.enum(['desktop', 'web', 'mobile']);
export const ClientSupport = z.enum(['yes', 'partial', 'no']);

// Error bodies.

export const Detail = z.object({ detail: z.string() }).meta({ id: 'Detail', description: 'The error body of most endpoints: {"detail": "<message>"}.' });
export const ErrorBody = z.object({ error: z.string() }).meta({ id: 'Error', description: 'The error body of a few /v1 endpoints: {"error": "<message>"}.' });
export const FieldErrors = z.record(z.string(), z.array(z.string())).meta({
  id: 'FieldErrors',
  description: 'Field errors: each failing field with a list of messages, several fields in one object (docs/api-contract.md §1).',
});
export const NonFieldErrors = z
  .object({ non_field_errors: z.array(z.string()) })
  .meta({ id: 'NonFieldErrors', description: 'A JSON body that is not an object.' });
