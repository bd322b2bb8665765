import { array, bool, detail, int, jsonBody, noContent, object, pathParam, query, ref, response, str, type Json, type Paths } from './helpers.ts';

/** Reset, blocks, faults, the request log, and the routes of the flows and ship parts (clock, subscriptions, health). */

const reset = object(
  {
    team: { anyOf: [str(), { type: 'null' }] },
    restore_fixtures: bool(),
    removed: { type: 'object', additionalProperties: int(), description: 'What each part removed: subscriptions, messages, recipients, blocks, daily_counters, requests, faults.' },
  },
  [],
);

const teamEmail = object({ team: str('Team id.'), email: str(undefined, { format: 'email' }) });
const faultId = pathParam('id', 'Fault rule id.');
const noFault = detail('No such rule.', 'Not found.');

export const toolkitPaths: Paths = {
  '/api/reset': {
    post: {
      summary: 'Reset the sandbox',
      description:
        'Clears captures (and their files), recipients, subscriptions, blocks, daily counters, the request log and fault rules added through the API, for one team or everything. `restore_fixtures` (default true) brings back the configured blocks and fault rules; false leaves them off too.',
      tags: ['toolkit'],
      requestBody: jsonBody(object({ team: str('Only this team.'), restore_fixtures: bool('Default true.') }, ['team', 'restore_fixtures']), false, { team: 'acme' }),
      responses: {
        200: response('What was removed.', reset, { team: 'acme', restore_fixtures: true, removed: { subscriptions: 0, messages: 3, recipients: 2, blocks: 0, daily_counters: 1, requests: 4, faults: 0 } }),
        400: detail('Unknown team or bad value.', 'team "nope" is not a configured team.'),
      },
    },
  },
  '/api/blocks': {
    get: {
      summary: 'Blocked recipients',
      tags: ['toolkit'],
      parameters: [query('team', 'Team id.')],
      responses: { 200: response('Blocks in force.', object({ blocks: array(ref('BlockEntry')) })), 400: detail('Unknown team.', 'team "nope" is not a configured team.') },
    },
    post: {
      summary: 'Block a recipient',
      tags: ['toolkit'],
      requestBody: jsonBody(teamEmail),
      responses: {
        200: response('Already blocked.', ref('BlockEntry')),
        201: response('Blocked.', ref('BlockEntry')),
        400: detail('Missing or bad team or email.', 'email must be a valid email address.'),
      },
    },
    delete: {
      summary: 'Unblock a recipient',
      description: 'Also lifts a configured block, until a reset that restores the fixtures. Parameters in the query string or a JSON body.',
      tags: ['toolkit'],
      parameters: [query('team', 'Team id.'), query('email', 'Address.')],
      responses: { 204: noContent(), 400: detail('Missing or bad team or email.', 'team is required.'), 404: detail('Not blocked.', 'Not found.') },
    },
  },
  '/api/faults': {
    get: { summary: 'Fault rules', tags: ['toolkit'], responses: { 200: response('Every rule in force, with its counters.', object({ faults: array(ref('FaultRule')) })) } },
    post: {
      summary: 'Add a fault rule',
      tags: ['toolkit'],
      requestBody: jsonBody({ $ref: '#/components/schemas/FaultRule' }, true, { target: 'http', match: { route: '/v1/email/send/' }, action: { type: 'status', status: 503 }, times: 2 }),
      responses: { 201: response('Added.', ref('FaultRule')), 400: detail('Invalid rule.', 'action.type: must be status, delay, drop, smtp_reply or rate_limit') },
    },
    delete: { summary: 'Remove every fault rule', description: 'Configured rules too, until a reset restores them.', tags: ['toolkit'], responses: { 204: noContent() } },
  },
  '/api/faults/{id}': {
    get: { summary: 'One fault rule', tags: ['toolkit'], parameters: [faultId], responses: { 200: response('The rule.', ref('FaultRule')), 404: noFault } },
    delete: { summary: 'Remove a fault rule', tags: ['toolkit'], parameters: [faultId], responses: { 204: noContent(), 404: noFault } },
  },
  '/api/requests': {
    get: {
      summary: 'The /v1 request log',
      description: 'Newest first; the last 10,000 requests are kept.',
      tags: ['toolkit'],
      parameters: [
        query('method', 'GET, POST, DELETE, ...'),
        query('path', 'Exact path, or a glob with * ("/v1/email/*").'),
        query('status', 'A code (429), a class (4xx) or "dropped".'),
        query('sender', 'Sender id or API key.'),
        query('team', 'Team id.'),
        query('fault', 'true: only requests a fault rule answered or delayed.'),
        query('limit', '1–500, default 50.', { type: 'integer' }),
        query('offset', 'Default 0.', { type: 'integer' }),
      ],
      responses: {
        200: response('A page.', object({ total: int(), offset: int(), limit: int(), requests: array(ref('RequestLogEntry')) })),
        400: detail('A filter has a bad value.', 'status must be a status code (429), a class (4xx) or "dropped".'),
      },
    },
    delete: { summary: 'Clear the request log', tags: ['toolkit'], responses: { 204: noContent() } },
  },
  '/api/openapi.json': {
    get: { summary: 'This document', tags: ['toolkit'], responses: { 200: response('OpenAPI 3.1.', { type: 'object' }) } },
  },
};

const clock = (summary: string, description: string, body?: Json): Json => ({
  summary,
  description,
  tags: ['clock'],
  ...(body ? { requestBody: jsonBody(body) } : {}),
  responses: { 200: response('The clock.', ref('Clock')), ...(body ? { 400: detail('Bad value.', 'duration must be like 30s, 15m, 2h, 1d.') } : {}) },
});

export const flowPaths: Paths = {
  '/api/clock': { get: clock('The sandbox clock', 'Now, its offset from real time, and whether it follows real time.') },
  '/api/clock/advance': { post: clock('Advance the clock', 'Runs every flow step and delivery that fell due, in order, before answering.', object({ duration: str('"2d", "90m", ...') })) },
  '/api/clock/set': { post: clock('Set the clock', 'Moving backwards is refused with 400.', object({ at: str(undefined, { format: 'date-time' }) })) },
  '/api/clock/reset': { post: clock('Back to real time', '') },
  '/api/subscriptions': {
    get: {
      summary: 'Flow subscriptions with their steps',
      tags: ['flows'],
      parameters: [query('team', 'Team id.'), query('email', 'Address.'), query('status', 'active, completed or cancelled.'), query('limit', 'Page size.'), query('offset', 'Offset.')],
      responses: { 200: response('A page.', object({ total: int(), offset: int(), limit: int(), subscriptions: array({ type: 'object' }) })) },
    },
  },
};

export const healthPaths: Paths = {
  '/livez': { get: { summary: 'Liveness', tags: ['operations'], responses: { 200: response('Alive.', { type: 'object' }) } } },
  '/readyz': { get: { summary: 'Readiness', tags: ['operations'], responses: { 200: response('Ready.', { type: 'object' }), 503: response('Not ready.', { type: 'object' }) } } },
  '/metrics': { get: { summary: 'Prometheus metrics', tags: ['operations'], responses: { 200: { description: 'text/plain; version=0.0.4', content: { 'text/plain': { schema: str() } } } } } },
  '/': { get: { summary: 'The inbox UI (or, if the UI was not built, a page that says so)', tags: ['operations'], responses: { 200: { description: 'HTML.', content: { 'text/html': { schema: str() } } } } } },
  '/assets/{file}': {
    get: {
      summary: "The inbox UI's built scripts and styles (hashed names, cached for a year)",
      tags: ['operations'],
      parameters: [{ name: 'file', in: 'path', required: true, schema: str() }],
      responses: { 200: { description: 'The file.' }, 404: { description: 'No such file.' } },
    },
  },
};
