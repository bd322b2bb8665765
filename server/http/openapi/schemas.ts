import { z } from 'zod';
import {
  BlockReason,
  CheckPlatform,
  ClientSupport,
  DeliveryStatus,
  ForcedStatus,
  SmtpStage,
  Source,
  StepState,
  SubscriptionStatus,
  UnwrappedBody,
  int,
  time,
} from './wire-basics.ts';
import {
  AttachmentInfo,
  BlockEntry,
  Capture,
  CaptureSearch,
  Clock,
  ExpectFailure,
  ExpectResult,
  Extracted,
  FaultAction,
  FaultRule,
  FaultRuleInput,
  FlowMark,
  HeaderField,
  Link,
  MessageDetail,
  MessageList,
  MessageSummary,
  Page,
  RecipientList,
  RefusedSend,
  RefusedSmtp,
  Released,
  Removed,
  RequestLogEntry,
  RequestLogList,
  ResetResult,
  Rewrap,
  RewrappedCapture,
  SandboxRecipient,
  SandboxSubscription,
  SearchResult,
  Sender,
  SubscriptionList,
  SubscriptionStep,
  TemplateFile,
  TemplateFileInfo,
  TemplateFileList,
  TemplateVersion,
  TemplateVersions,
  WaitFailure,
} from './sandbox-schemas.ts';
import {
  AccessibilityIssue,
  CheckReport,
  ClientView,
  ClientViewId,
  Compatibility,
  CompatibilityWarning,
  DarkMode,
  EmailClient,
  HeadersReport,
  LinkCheck,
  LinkEvent,
  LinkResult,
  RenderMode,
  SizeReport,
  SpamReport,
  TemplateFindings,
  ViewRemoval,
} from './check-schemas.ts';

/**
 * The wire's schemas, written once: the error bodies of both APIs, the /v1 representations, the
 * sandbox API's and the live push's wire types. The OpenAPI document shows them; the MCP tools
 * take their inputs from them; and the typed client's wire types (client/wire-types.ts, which the
 * server's `satisfies`, the live push's frames and the inbox UI use) are generated from them by
 * `npm run generate` (scripts/generate-wire-types.ts; `wireTypes` below names each one).
 * Written in parts by what they describe (wire-basics.ts, v1-schemas.ts, sandbox-schemas.ts,
 * check-schemas.ts); this file holds the live push's frames and is where the rest imports them from.
 */

export * from './wire-basics.ts';
export * from './v1-schemas.ts';
export * from './sandbox-schemas.ts';
export * from './check-schemas.ts';

// The live push (/api/events, docs/live-push.md): frames `{type, data}`.

const Hello = z
  .object({
    server_time: time('Sandbox time.'),
    total: int().describe('How many captures there are.'),
    smtp_port: int().nullable().describe('The SMTP port, for the getting-started help.'),
  })
  .describe('The hello frame: the sandbox clock, how many captures there are, the SMTP port.');
const frame = <T extends string, D extends z.ZodType>(type: T, data: D) => z.object({ type: z.literal(type), data });
const Frame = z
  .union([
    frame('hello', Hello),
    z.object({ type: z.enum(['message.created', 'message.status', 'message.updated']), data: MessageSummary }),
    frame('message.deleted', z.object({ ids: z.array(z.string()) })),
    frame('message.cleared', z.object({ count: int() })),
    frame('recipient.changed', SandboxRecipient),
    frame('subscription.changed', SandboxSubscription),
    frame('subscription.removed', z.object({ id: int() })),
    frame('clock.changed', Clock),
    frame(
      'template_file.changed',
      z.object({ name: z.string().describe('The file in the --templates folder.'), removed: z.boolean().describe('It was deleted or renamed away.') }),
    ),
    frame('template.changed', z.object({ sender: z.string(), version: int().describe("The version now in use (0: the configuration file's).") })),
    frame('sandbox.reset', ResetResult.pick({ team: true, namespace: true, removed: true })),
  ])
  .describe('Frames pushed on the /api/events WebSocket, `{type, data}`.');

/**
 * The typed client's wire types, each under the name client/wire-types.ts gives it (some differ
 * from the document's component names, e.g. SandboxRecipient is the client's Recipient), and the
 * enumerations the client also exports as lists. Generated with `npm run generate`.
 */
export const wireTypes = {
  types: {
    Source,
    DeliveryStatus,
    ForcedStatus,
    SubscriptionStatus,
    UnwrappedBody,
    BlockReason,
    SmtpStage,
    StepState,
    CheckPlatform,
    ClientSupport,
    MessageSummary,
    Link,
    Extracted,
    Capture,
    ExpectResult,
    ExpectFailure,
    RefusedSend,
    RefusedSmtp,
    WaitFailure,
    SearchResult,
    AttachmentInfo,
    HeaderField,
    FlowMark,
    MessageDetail,
    Page,
    MessageList,
    SearchPage: CaptureSearch,
    Removed,
    ResetResult,
    BlockEntry,
    FaultAction,
    FaultRuleInput,
    FaultRule,
    RequestLogEntry,
    RequestLogList,
    Clock,
    Sender,
    TemplateVersion,
    TemplateVersions,
    RewrappedCapture,
    Rewrap,
    TemplateFileInfo,
    TemplateFileList,
    TemplateFile,
    Released,
    Recipient: SandboxRecipient,
    RecipientList,
    SubscriptionStep,
    Subscription: SandboxSubscription,
    SubscriptionList,
    EmailClient,
    CompatibilityWarning,
    Compatibility,
    SizeReport,
    AccessibilityIssue,
    DarkMode,
    HeadersReport,
    TemplateFindings,
    SpamReport,
    CheckReport,
    LinkCheckResult: LinkResult,
    LinkCheck,
    LinkEvent,
    ClientViewId,
    RenderMode,
    ViewRemoval,
    ClientView,
    Hello,
    Frame,
  } satisfies Record<string, z.ZodType>,
  lists: {
    CLIENT_VIEW_IDS: ClientViewId,
    RENDER_MODES: RenderMode,
    SOURCES: Source,
    DELIVERY_STATUSES: DeliveryStatus,
    FORCED_STATUSES: ForcedStatus,
    SUBSCRIPTION_STATUSES: SubscriptionStatus,
  },
};
