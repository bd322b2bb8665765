import { array, detail, json, noContent, pathParam, query, ref, response, type Json, type Paths } from './helpers.ts';

/** /v1: the emulated service, from api-contract.md. Every error body is given with its exact text. */

const CREDENTIALS = 'Authentication credentials were not provided.';
const ENCODINGS = ['application/json', 'application/x-www-form-urlencoded', 'multipart/form-data'];

/** Every POST accepts the same fields as JSON, form-encoded or multipart (§1). */
function body(schema: string): Json {
  return { required: true, content: Object.fromEntries(ENCODINGS.map((type) => [type, { schema: ref(schema) }])) };
}

const common: Record<string, Json> = {
  401: detail('Missing, malformed, unknown or revoked key. Header `WWW-Authenticate: Api-Key`.', CREDENTIALS, {
    'WWW-Authenticate': { schema: { type: 'string', const: 'Api-Key' } },
  }),
  403: detail("Valid key whose team does not have the email flows feature.", CREDENTIALS),
  405: detail('Known path, another method; the `Allow` header lists the methods.', 'Method "PUT" not allowed.', {
    Allow: { schema: { type: 'string' } },
  }),
  // Only when a fault rule fires (see /api/faults); a 429 status fault answers with the daily-limit
  // body, a rate_limit fault with {"error": "Request was throttled. ..."} and Retry-After.
  500: detail('Only when a fault rule injects it.', 'Internal server error.'),
  503: detail('Only when a fault rule injects it.', 'Service temporarily unavailable, try again later.'),
};

const bodyErrors: Record<string, Json> = {
  413: detail('Body over the size limit (default 25 MB).', 'Request body exceeds the limit of 26214400 bytes.'),
  415: detail('Another content type.', 'Unsupported media type "text/plain" in request.'),
};

const malformed = (fields: unknown): Json => ({
  description: 'Field errors, malformed JSON (`{"detail": "JSON parse error - <reason>"}`) or a JSON body that is not an object.',
  content: json({ anyOf: [ref('FieldErrors'), ref('Detail'), ref('NonFieldErrors')] }, fields),
});

function operation(summary: string, description: string, responses: Record<string, Json>, extra: Json = {}): Json {
  return { summary, description, tags: ['v1'], security: [{ ApiKey: [] }], ...extra, responses: { ...responses, ...common } };
}

const page = query('page', 'Page number from 1, or "last". Page size 20. Out of range or not a number: 404 {"detail": "Invalid page."}.');
const invalidPage = detail('Page out of range or not a number.', 'Invalid page.');
const idParam = pathParam('id', 'Email id.');

const detailOp = (withPath: boolean) =>
  operation(
    'Email detail',
    'One email of the caller\'s team. Without a path id: `?id=<id>`, or `?email=<address>` (alias `recipient`) for the most recent email to that address. With an `Encryption-Key` header an encrypted record is opened; without it the body is the opaque `enc:v1:<base64>`.',
    {
      200: response('The email.', ref('EmailDetail')),
      400: {
        description: 'No identifier, or the wrong Encryption-Key.',
        content: json(ref('Detail'), { detail: 'Provide sqid in URL path or as query parameter (id=<sqid>) or email=<address> as query parameter.' }),
      },
      404: detail('No such email in the team.', 'Not found.'),
    },
    {
      parameters: [
        ...(withPath ? [idParam] : [query('id', 'Email id.'), query('email', 'Most recent email to this address.'), query('recipient', 'Alias of email.')]),
        { name: 'Encryption-Key', in: 'header', required: false, schema: { type: 'string' } },
      ],
    },
  );

const deliveryOp = (withPath: boolean) =>
  operation(
    'Delivery status',
    'pending until the delivery delay passes, then delivered, bounced or complained (SES simulator addresses), failed when blocked. The id may also be sent in a JSON or form body.',
    {
      200: response('Status.', ref('Delivery')),
      400: detail('No identifier.', 'Provide id in URL path, query parameter, or request payload.'),
      404: response('Unknown id (note the "error" key).', ref('Error'), { error: 'Email not found' }),
    },
    { parameters: withPath ? [idParam] : [query('id', 'Email id.')] },
  );

export const v1Paths: Paths = {
  '/v1/email/send/': {
    post: operation(
      'Send an email',
      'Captures the email (nothing is delivered). Effects in order: the recipient record is created or updated, the account template wraps the body unless `use_account_template` is false, Development Mode redirects to the development recipient. A blocked recipient gets a record with status failed.',
      {
        200: response('Accepted and captured; with `"error": "Recipient is blocked"` when blocked.', ref('EmailId'), { id: 'JDT' }),
        400: malformed({ recipient: ['This field is required.'], body: ['This field is required.'] }),
        ...bodyErrors,
        429: response(
          "The sender's daily limit (UTC day) is used up; nothing is created. A rate_limit fault rule (/api/faults) answers 429 too, with `{\"error\": \"Request was throttled. Expected available in N seconds.\"}` and `Retry-After: N`.",
          ref('Error'),
          { error: 'Daily limit of 100 emails has been reached' },
          { 'Retry-After': { description: 'Only from a rate_limit fault: whole seconds until the key may send again.', schema: { type: 'integer' } } },
        ),
      },
      { requestBody: body('SendEmail'), parameters: [{ name: 'Encryption-Key', in: 'header', required: false, description: 'Encrypts the stored record body.', schema: { type: 'string' } }] },
    ),
  },
  '/v1/email/list/': {
    get: operation(
      'List emails',
      "The team's emails, newest first, 20 per page.",
      {
        200: response('A page.', ref('EmailList')),
        400: response('Bad recipient filter (a string, not a list).', { type: 'object', properties: { recipient: { type: 'string' } } }, { recipient: 'Enter a valid email address.' }),
        404: invalidPage,
      },
      { parameters: [query('recipient', 'Exact address, any case.'), page] },
    ),
  },
  '/v1/email/detail/': { get: detailOp(false) },
  '/v1/email/detail/{id}/': { get: detailOp(true) },
  '/v1/email/delivery/': { get: deliveryOp(false) },
  '/v1/email/delivery/{id}/': { get: deliveryOp(true) },
  '/v1/flows/subscribe/': {
    post: operation(
      'Subscribe to a flow',
      'Creates the recipient if missing; the subscription starts at step 1.',
      {
        201: response('Subscribed.', ref('Subscribed'), { detail: "Recipient 'user@example.com' successfully subscribed to flow 'Welcome Signup Flow'.", subscription_id: 1 }),
        400: {
          description: "Unknown flow (`Flow with trigger '<trigger>' not found.`), already subscribed, a flow without steps, or field errors.",
          content: json({ anyOf: [ref('Detail'), ref('FieldErrors')] }, { detail: "Flow with trigger 'NOPE' not found." }),
        },
        ...bodyErrors,
      },
      { requestBody: body('Subscribe') },
    ),
  },
  '/v1/flows/unsubscribe/': {
    post: operation(
      'Unsubscribe from a flow',
      'Cancels the active subscription.',
      {
        200: response('Cancelled.', ref('Detail'), { detail: "Recipient 'user@example.com' successfully unsubscribed from flow 'Welcome Signup Flow'." }),
        400: {
          description: 'Unknown flow, not subscribed, or field errors.',
          content: json({ anyOf: [ref('Detail'), ref('FieldErrors')] }, { detail: "Recipient 'user@example.com' is not subscribed to flow 'Welcome Signup Flow'." }),
        },
        ...bodyErrors,
      },
      { requestBody: body('Unsubscribe') },
    ),
  },
  '/v1/flows/subscriptions/': {
    get: operation('List subscriptions', 'A plain array, newest first.', { 200: response('Subscriptions.', array(ref('Subscription'))) }, {
      parameters: [query('email', 'Filter by address.'), query('flow_trigger', 'Filter by flow.')],
    }),
    delete: operation(
      'Remove subscriptions',
      "Removes that recipient's subscriptions to that flow. Parameters in the query string (a JSON or form body is also read).",
      {
        204: noContent(),
        400: detail('A parameter is missing.', 'Both email and flow_trigger are required.'),
        404: detail('No such subscription.', 'Not found.'),
      },
      { parameters: [query('email', 'Address.'), query('flow_trigger', 'Flow trigger.')] },
    ),
  },
  '/v1/recipients/': {
    get: operation('List recipients', 'Newest first, 20 per page.', { 200: response('A page.', ref('RecipientList')), 404: invalidPage }, {
      parameters: [query('email', 'Exact address.'), query('flag', 'Has this flag.'), page],
    }),
    post: operation(
      'Create or update a recipient',
      'Given names overwrite, omitted ones are kept, flags are only added.',
      { 200: response('Updated.', ref('Recipient')), 201: response('Created.', ref('Recipient')), 400: malformed({ email: ['Enter a valid email address.'] }), ...bodyErrors },
      { requestBody: body('RecipientUpsert') },
    ),
  },
  '/v1/recipients/flags/set/': {
    post: operation(
      'Set flags',
      'Creates the recipient if missing.',
      {
        200: response('Set; the list printed as Python prints it.', ref('Message'), { message: 'Flags [\'premium\', \'onboarded\'] set for recipient "user@example.com".' }),
        400: malformed({ flags: ['This list may not be empty.'] }),
        ...bodyErrors,
      },
      { requestBody: body('FlagsChange') },
    ),
  },
  '/v1/recipients/flags/clear/': {
    post: operation(
      'Clear flags',
      'Removes the flags (clearing one the recipient lacks is fine).',
      {
        200: response('Cleared.', ref('Message'), { message: 'Flags [\'premium\'] cleared for recipient "user@example.com".' }),
        400: malformed({ flags: ['This field is required.'] }),
        404: detail('Unknown recipient.', 'Not found.'),
        ...bodyErrors,
      },
      { requestBody: body('FlagsChange') },
    ),
  },
};
