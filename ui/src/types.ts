/**
 * Wire shapes of the sandbox API (/api) and the live push: the typed client's, the one
 * definition the server answers with (client/pigeonhole-client.ts).
 */
export type {
  CheckPlatform,
  CheckReport,
  ClientSupport,
  Clock,
  CompatibilityWarning,
  DeliveryStatus,
  Frame,
  LinkCheckResult,
  MessageDetail,
  MessageList as Page,
  MessageSummary,
  Released,
  Sender,
  Source,
  StepState,
  Subscription,
  TemplateFile,
} from '../../client/pigeonhole-client.ts';
import type { ListFilter } from '../../client/pigeonhole-client.ts';

/** The delivery statuses, in the client's order (the status filter offers them). */
export { DELIVERY_STATUSES } from '../../client/pigeonhole-client.ts';

/** The inbox list's filters (the query of GET /api/messages). */
export type MessageFilter = Pick<ListFilter, 'q' | 'source' | 'status' | 'blocked' | 'redirected' | 'read' | 'namespace'>;
