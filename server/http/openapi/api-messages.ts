import { array, bool, detail, int, jsonBody, noContent, object, pathParam, query, ref, response, str, type Json, type Paths } from './helpers.ts';

/** /api/messages: captured mail, its toolkit (wait, latest, search, extract, status), and the inbox's additions. */

const tags = ['messages'];
const id = pathParam('id', 'Message (capture) id.');
const notFound = detail('No such message.', 'Not found.');
const badQuery = detail('A query parameter has a bad value.', 'limit must be a whole number from 1 to 500.');

const filters: Json[] = [
  query('recipient', 'Any address on the capture: original recipient, To, Cc or Bcc (any case).'),
  query('subject', 'Case-insensitive substring of the subject.'),
  query('q', 'Words, each found in the subject, an address, the From or the sender id.'),
  query('sender', 'Sender id, or an API key (resolved to its sender).'),
  query('team', 'Team id.'),
  query('source', 'How it arrived.', { type: 'string', enum: ['api', 'smtp', 'flow'] }),
  query('status', 'Delivery status.', { type: 'string', enum: ['pending', 'delivered', 'bounced', 'complained', 'failed'] }),
  query('since', 'Only captures created at or after this ISO-8601 time.', { type: 'string', format: 'date-time' }),
  query('after', 'Only captures after the capture with this id (newer).'),
];
const paging = [query('limit', '1–500, default 50.', { type: 'integer' }), query('offset', 'Default 0.', { type: 'integer' })];

const op = (summary: string, description: string, responses: Record<string, Json>, extra: Json = {}): Json => ({ summary, description, tags, ...extra, responses });

export const messagePaths: Paths = {
  '/api/messages': {
    get: op('List captures', 'Newest first.', { 200: response('A page.', ref('MessageList')), 400: badQuery }, {
      parameters: [...paging, query('recipient', 'Any address on the capture.'), query('q', 'Search words.'), query('source', 'api, smtp or flow.'), query('status', 'Delivery status.'), query('blocked', 'true or false.'), query('redirected', 'true or false.'), query('read', 'true or false.')],
    }),
    delete: op('Delete every capture', 'Captures and their files.', { 204: noContent() }),
  },
  '/api/messages/wait': {
    get: op(
      'Wait for a capture',
      'Holds the request until a capture matching the filters exists, then answers with it (the newest match). A match already stored answers at once, so add `after=<id>` or `since=<time>` (or reset first) to wait only for new mail. No polling: the server is told of each capture as it is stored.',
      {
        200: response('The capture, with links and codes.', ref('Capture')),
        400: detail('A filter or the timeout has a bad value.', 'timeout must be a whole number from 0 to 120000.'),
        408: detail('Nothing matched within the timeout.', 'No message matching the filters arrived within 10000 ms.'),
      },
      { parameters: [...filters, query('timeout', 'Milliseconds to wait, 0–120000, default 10000.', { type: 'integer' })] },
    ),
  },
  '/api/messages/latest': {
    get: op('Latest capture', 'The newest capture matching the filters, with its bodies, links and codes.', {
      200: response('The capture.', ref('Capture')),
      400: detail('A filter has a bad value.', 'source must be one of api, smtp, flow.'),
      404: detail('Nothing matches.', 'No message matches the filters.'),
    }, { parameters: filters }),
  },
  '/api/messages/search': {
    get: op('Search captures', 'Newest first, with the same filters as wait; each result carries its links and codes (bodies: GET its url).', {
      200: response('A page.', ref('CaptureSearch')),
      400: badQuery,
    }, { parameters: [...filters, ...paging] }),
  },
  '/api/messages/{id}': {
    get: op(
      'One capture',
      'Summary plus names, flags, template flag, SES id, bodies, `text_derived` (true when `text` is the HTML rendered as text because there is no plain part), links and codes, headers, raw_url and attachments.',
      { 200: response('The capture.', { type: 'object' }), 404: notFound },
      { parameters: [id] },
    ),
    patch: op('Mark read or unread', '', { 200: response('The summary.', ref('MessageSummary')), 400: detail('Bad body.', 'read must be true or false.'), 404: notFound }, {
      parameters: [id],
      requestBody: jsonBody(object({ read: bool() })),
    }),
    delete: op('Delete a capture', 'The capture and its files.', { 204: noContent(), 404: notFound }, { parameters: [id] }),
  },
  '/api/messages/{id}/raw': {
    get: op('The .eml', 'RFC 5322 message; `?download` to save it.', { 200: { description: 'message/rfc822', content: { 'message/rfc822': { schema: str() } } }, 404: notFound }, {
      parameters: [id, query('download', 'Present: Content-Disposition attachment.')],
    }),
  },
  '/api/messages/{id}/html': {
    get: op('HTML for the preview', 'cid: references rewritten, scripts forbidden by CSP, remote images blocked unless `?remote=1`.', {
      200: { description: 'text/html', content: { 'text/html': { schema: str() } } },
      404: notFound,
    }, { parameters: [id, query('remote', '1 to allow remote images.')] }),
  },
  '/api/messages/{id}/text': {
    get: op(
      'Text body',
      'The plain part; when the capture has none, its HTML rendered as text. `X-Pigeonhole-Text-Derived: true` says which.',
      {
        200: {
          description: 'text/plain',
          headers: { 'X-Pigeonhole-Text-Derived': { description: 'true: rendered from the HTML (no plain part); false: the plain part.', schema: { type: 'string', enum: ['true', 'false'] } } },
          content: { 'text/plain': { schema: str() } },
        },
        404: detail('No such capture, or it has neither a plain nor an HTML part.', 'This capture has no text body.'),
      },
      { parameters: [id] },
    ),
  },
  '/api/messages/{id}/attachments/{index}': {
    get: op('An attachment', 'Its bytes; `?download` to save it.', { 200: { description: 'The attachment.', content: { 'application/octet-stream': { schema: str(undefined, { format: 'binary' }) } } }, 404: notFound }, {
      parameters: [id, { name: 'index', in: 'path', required: true, schema: int() }, query('download', 'Present: save it.')],
    }),
  },
  '/api/messages/{id}/extract': {
    get: op(
      'Links and one-time codes',
      'Links: every `<a href>` with its visible text and every URL written as text in the HTML or the plain part (`www.` forms; bare domains only with a path), de-duplicated by href in reading order, entities decoded, sentence punctuation left out; an anchor whose text is another URL (a tracking redirect) gives both. Codes, from visible text only: 4–8 digits or capital letters and digits (one digit at least), also "123 456", in a sentence with code/OTP/PIN/verification/passcode (or on the line after one); not amounts, years in dates, numbers in URLs or after # or a word like order or invoice.',
      { 200: response('Extracted.', ref('Extracted'), { links: [{ href: 'https://app.example/verify?t=abc', text: 'Verify' }], codes: ['482913'] }), 404: notFound },
      { parameters: [id] },
    ),
  },
  '/api/messages/{id}/status': {
    post: op(
      'Force the delivery status',
      'A bounce or complaint blocks the original recipient for later sends of the team (api-contract.md §6). Announced as message.status.',
      {
        200: response('The summary with its new status.', ref('MessageSummary')),
        400: detail('Bad status.', 'status must be one of delivered, bounced, complained, failed.'),
        404: notFound,
      },
      { parameters: [id], requestBody: jsonBody(object({ status: str(undefined, { enum: ['delivered', 'bounced', 'complained', 'failed'] }) })) },
    ),
  },
};

export const inboxPaths: Paths = {
  '/api/senders': {
    get: { summary: 'Configured senders', tags: ['inbox'], responses: { 200: response('Senders.', object({ senders: array({ type: 'object' }) })) } },
  },
  '/api/preview': {
    post: {
      summary: 'Wrap HTML in a sender\'s template',
      tags: ['inbox'],
      requestBody: jsonBody(object({ sender: str('Sender id.'), html: str() })),
      responses: { 200: response('Wrapped.', object({ html: str() })), 400: detail('Bad body.', 'sender is required.') },
    },
  },
  '/api/recipients': {
    get: {
      summary: 'Recipients of every team',
      tags: ['inbox'],
      parameters: [query('team', 'Team id.'), query('q', 'Search.'), ...paging],
      responses: { 200: response('A page.', object({ total: int(), offset: int(), limit: int(), recipients: array({ type: 'object' }) })) },
    },
  },
  '/api/events': {
    get: {
      summary: 'Live events (WebSocket)',
      description: 'Upgrade to a WebSocket; frames are JSON {type, data}: hello, message.created, message.status, message.updated, message.deleted, message.cleared, recipient.changed, subscription.changed, subscription.removed, clock.changed.',
      tags: ['inbox'],
      'x-websocket': true,
      responses: { 101: { description: 'Switching protocols.' } },
    },
  },
};
