/**
 * The emulated service's own texts, each written once, byte for byte as docs/api-contract.md has
 * them (a wire fact unless the comment says sandbox). The /v1 edge, the fault injection, the
 * OpenAPI document's examples and the SMTP replies all take them from here; the domain never does
 * (scripts/check-layers.mjs): it raises refusals, the edges say them.
 */

// §1 Conventions

/** §1: an unknown path, an unknown id, an unknown recipient (sandbox decision for the last). */
export const NOT_FOUND = 'Not found.';
/** §1: a known path, another method. */
export const methodNotAllowed = (method: string) => `Method "${method}" not allowed.`;
/** §1: malformed JSON (sandbox decision, the framework's text). */
export const jsonParseError = (reason: string) => `JSON parse error - ${reason}`;
/** §1: another content type (sandbox decision, the framework's text). */
export const unsupportedMediaType = (type: string) => `Unsupported media type "${type}" in request.`;
/** §1: a body over the size limit (sandbox decision). */
export const bodyTooLarge = (limit: number) => `Request body exceeds the limit of ${limit} bytes.`;
/** §1: a JSON body that is not an object (sandbox decision, the framework's text); `type` is Python's name of it. */
export const notADictionary = (type: string) => `Invalid data. Expected a dictionary, but got ${type}.`;

/** §1: the standard field messages. */
export const FIELD = {
  required: 'This field is required.',
  blank: 'This field may not be blank.',
  /** The framework's text for null (not listed in §1, which leaves null unsaid). */
  null: 'This field may not be null.',
  notString: 'Not a valid string.',
  badEmail: 'Enter a valid email address.',
  badBoolean: 'Must be a valid boolean.',
  /** §5: flags given as an empty list. */
  emptyList: 'This list may not be empty.',
} as const;

// §2 Authentication

/** §2: the 401 (no, malformed, unknown or revoked key) and the 403 (team without flows) body. */
export const CREDENTIALS = 'Authentication credentials were not provided.';

// §3 Email

/** §3: the send's 200 beside the id when the recipient is blocked. */
export const RECIPIENT_BLOCKED = 'Recipient is blocked';
/** §3: the send's 429 (no final period); also the SMTP reply's text for the same limit. */
export const dailyLimitReached = (limit: number) => `Daily limit of ${limit} emails has been reached`;
/** §3: email list and recipient list page out of range or not a number (sandbox decision). */
export const INVALID_PAGE = 'Invalid page.';
/** §3: email detail without an identifier. */
export const DETAIL_NEEDS_ID = 'Provide sqid in URL path or as query parameter (id=<sqid>) or email=<address> as query parameter.';
/** §3: delivery without an identifier. */
export const DELIVERY_NEEDS_ID = 'Provide id in URL path, query parameter, or request payload.';
/** §3: delivery of an unknown id (key `error`, unlike detail). */
export const EMAIL_NOT_FOUND = 'Email not found';
/** §3: an encrypted record read with the wrong key (sandbox decision). */
export const INVALID_ENCRYPTION_KEY = 'Invalid encryption key.';

// §4 Flows

/** §4: subscribe's 201. */
export const subscribed = (email: string, flow: string) => `Recipient '${email}' successfully subscribed to flow '${flow}'.`;
/** §4: unsubscribe's 200. */
export const unsubscribed = (email: string, flow: string) => `Recipient '${email}' successfully unsubscribed from flow '${flow}'.`;
/** §4: no flow has this trigger. */
export const flowNotFound = (trigger: string) => `Flow with trigger '${trigger}' not found.`;
/** §4: already actively subscribed (sandbox text). */
export const alreadySubscribed = (email: string, flow: string) => `Recipient '${email}' is already subscribed to flow '${flow}'.`;
/** §4: not subscribed (sandbox text). */
export const notSubscribed = (email: string, flow: string) => `Recipient '${email}' is not subscribed to flow '${flow}'.`;
/** §4: a flow without steps (sandbox text). */
export const flowHasNoSteps = (flow: string) => `Flow '${flow}' has no steps.`;
/** §4: DELETE /v1/flows/subscriptions/ without both parameters (sandbox text). */
export const BOTH_REQUIRED = 'Both email and flow_trigger are required.';

// §5 Recipients and flags

/** §5: flags set; `flags` is the list as Python prints it. */
export const flagsSet = (flags: string, email: string) => `Flags ${flags} set for recipient "${email}".`;
/** §5: flags cleared; `flags` is the list as Python prints it. */
export const flagsCleared = (flags: string, email: string) => `Flags ${flags} cleared for recipient "${email}".`;

// Fault injection and throttling (sandbox decisions, the framework's texts; docs/api-contract.md §1)

/** An injected 500, and any error of ours no rule renders. */
export const INTERNAL_ERROR = 'Internal server error.';
/** An injected 503 (the framework's ServiceUnavailable). */
export const SERVICE_UNAVAILABLE = 'Service temporarily unavailable, try again later.';
/** A rate_limit fault or a throttled key (the framework's Throttled). */
export const throttled = (seconds: number) => `Request was throttled. Expected available in ${seconds} ${seconds === 1 ? 'second' : 'seconds'}.`;
