import type { DeliveryStatus } from '../storage/records.ts';

/**
 * The domain's entities. Storage keeps them on disk in these shapes (storage/records.ts, which
 * knows nothing of the domain); the domain names them here, and every layer above it (http,
 * smtp, realtime, mcp) imports them from here, never from storage.
 */
export type {
  AttachmentRecord,
  BlockRecord,
  DeliveryStatus,
  FlowMark,
  MessageRecord,
  RecipientRecord,
  RequestLogRecord,
  Source,
  SubscriptionRecord,
  TemplateVersionRecord,
  WorkbenchData,
} from '../storage/records.ts';

/** The namespace rule (docs/testing.md): one definition, in storage, so records stored before it are read the same way. */
export { namespaceName } from '../storage/namespace.ts';

/** How a capture arrived, a capture's delivery status and a subscription's status: defined with the records. */
export { DELIVERY_STATUSES, SOURCES, SUBSCRIPTION_STATUSES } from '../storage/records.ts';
/** The statuses the sandbox API can force on a capture. */
export const FORCED_STATUSES = ['delivered', 'bounced', 'complained', 'failed'] as const satisfies readonly DeliveryStatus[];
