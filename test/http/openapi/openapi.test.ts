import path from 'node:path';
import { describe, expect } from 'vitest';
import { createRouter } from '../../../server/app.ts';
import { createSandboxMetrics } from '../../../server/metrics.ts';
import { read, type api, type TestServer } from '../../support/app.ts';
import { test as it } from '../../support/fixtures.ts';

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

type Doc = {
  openapi: string;
  paths: Record<string, Record<string, { responses?: object; 'x-websocket'?: boolean }>>;
  components: { schemas: Record<string, unknown> };
};

/** The routes the app's router serves (its /v1 paths asked with `v1` which methods they answer). */
async function servedRoutes(app: TestServer, v1: ReturnType<typeof api>): Promise<Set<string>> {
  const { sandbox, dataDir } = app;
  const { metrics } = createSandboxMetrics({ sandbox, store: app.store, processMetrics: false });
  // Only the routes are listed: nothing is served, so /mcp's in-process handler is never asked for.
  const notServed = () => {
    throw new Error('this router only lists routes');
  };
  const router = createRouter({ sandbox, metrics, maxBodySize: 1024, uploadDir: path.join(dataDir, 'tmp'), logger: { error: () => undefined } }, notServed);
  metrics.close();
  const routes = new Set<string>();
  for (const layer of router.stack) {
    if (typeof layer.path !== 'string') throw new Error(`a route is a regular expression: ${String(layer.path)}`);
    const openApiPath = layer.path.replace(/:(\w+)/g, '{$1}');
    let methods = layer.methods.filter((m) => m !== 'HEAD' && m !== 'OPTIONS');
    // /v1 paths are mounted with router.all and answer 405 themselves: their Allow header says
    // which methods they serve.
    if (methods.includes('PUT') && methods.includes('PATCH')) {
      const res = await v1.request('OPTIONS', (layer.path as string).replace(/:(\w+)/g, 'X'));
      methods = (res.headers.get('allow') ?? '').split(', ').filter((m) => m !== 'HEAD' && m !== 'OPTIONS');
    }
    for (const method of methods) routes.add(`${method} ${openApiPath}`);
  }
  return routes;
}

function specRoutes(doc: Doc): Set<string> {
  const routes = new Set<string>();
  for (const [p, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) {
      // A WebSocket upgrade is handled beside the router, not by it.
      if (item[method] && !item[method]['x-websocket']) routes.add(`${method.toUpperCase()} ${p}`);
    }
  }
  return routes;
}

describe('GET /api/openapi.json', () => {
  it('is an OpenAPI 3.1 document whose every $ref resolves', async ({ app }) => {
    const res = await read(await fetch(`${app.url}/api/openapi.json`));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const doc = res.body as Doc;
    expect(doc.openapi).toBe('3.1.0');
    const refs = [...res.text.matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)].map((m) => m[1]!);
    expect(refs.length).toBeGreaterThan(20);
    expect(refs.filter((name) => !(name in doc.components.schemas))).toEqual([]);
    for (const [p, item] of Object.entries(doc.paths))
      for (const method of METHODS) if (item[method]) expect(item[method]!.responses, `${method} ${p}`).toBeDefined();
  });

  it('documents every route the router serves, and serves every documented route', async ({ app, v1 }) => {
    const doc = (await read(await fetch(`${app.url}/api/openapi.json`))).body as Doc;
    const served = await servedRoutes(app, v1);
    const documented = specRoutes(doc);
    const undocumented = [...served].filter((r) => !documented.has(r)).sort();
    const unserved = [...documented].filter((r) => !served.has(r)).sort();
    expect({ undocumented, unserved }).toEqual({ undocumented: [], unserved: [] });
    expect(served.has('POST /v1/email/send/')).toBe(true);
    expect(served.has('DELETE /v1/flows/subscriptions/')).toBe(true);
    expect(served.has('GET /api/messages/wait')).toBe(true);
    expect(served.size).toBeGreaterThan(30);
  });

  it('gives the /v1 error bodies exactly as the server sends them', async ({ app, v1 }) => {
    const doc = (await read(await fetch(`${app.url}/api/openapi.json`))).body as any;
    const example = (p: string, method: string, status: number) => doc.paths[p][method].responses[status].content['application/json'].example;
    const unauthorized = await read(await fetch(`${app.url}/v1/email/list/`));
    expect(example('/v1/email/list/', 'get', 401)).toEqual(unauthorized.body);
    const missing = await read(await v1.get('/v1/email/delivery/'));
    expect(example('/v1/email/delivery/', 'get', 400)).toEqual(missing.body);
    const unknown = await read(await v1.get('/v1/email/delivery/XXXX/'));
    expect(example('/v1/email/delivery/{id}/', 'get', 404)).toEqual(unknown.body);
    const noIdentifier = await read(await v1.get('/v1/email/detail/'));
    expect(example('/v1/email/detail/', 'get', 400)).toEqual(noIdentifier.body);
  });
});

/**
 * One request per route (a new route needs one here), whose answer must be documented: its
 * status among the route's responses and its JSON exactly what the documented schema describes
 * (parsing it keeps every field: none missing, none extra). The schemas are the wire types', so
 * this holds the server, the document, the typed client and the UI to one shape.
 */
describe('every answer as documented', () => {
  const json = (body: unknown) => ({ method: 'POST', body: JSON.stringify(body), headers: { 'Content-Type': 'application/json' } });
  const samples = (id: string): Record<string, { path?: string; init?: RequestInit }[]> => ({
    'GET /api/messages': [{ path: '/api/messages?limit=5' }, { path: '/api/messages?limit=0' }],
    'DELETE /api/messages': [{ init: { method: 'DELETE' } }],
    'GET /api/messages/wait': [
      { path: '/api/messages/wait?timeout=0' },
      { path: '/api/messages/wait?timeout=0&recipient=nobody@example.com' },
      { path: '/api/messages/wait?timeout=0&recipient=refused-doc@example.com' },
    ],
    'GET /api/messages/expect': [
      { path: '/api/messages/expect?recipient=doc@example.com&count=1&within=0' },
      { path: '/api/messages/expect?recipient=doc@example.com&count=0&within=0' },
      { path: '/api/messages/expect?recipient=doc@example.com&count=2&within=0' },
      { path: '/api/messages/expect?recipient=doc@example.com' },
      { path: '/api/messages/expect?recipient=refused-doc@example.com&count=1&within=0' },
    ],
    'GET /api/messages/latest': [{}, { path: '/api/messages/latest?source=carrier-pigeon' }],
    'GET /api/messages/search': [{}],
    'GET /api/messages/:id': [{ path: `/api/messages/${id}` }, { path: '/api/messages/nope' }],
    'PATCH /api/messages/:id': [
      { path: `/api/messages/${id}`, init: { ...json({ read: true }), method: 'PATCH' } },
      { path: `/api/messages/${id}`, init: { ...json({ read: 'yes' }), method: 'PATCH' } },
    ],
    'DELETE /api/messages/:id': [{ path: '/api/messages/nope', init: { method: 'DELETE' } }],
    'GET /api/messages/:id/html': [{ path: `/api/messages/${id}/html` }],
    'GET /api/messages/:id/text': [{ path: `/api/messages/${id}/text` }],
    'GET /api/messages/:id/raw': [{ path: `/api/messages/${id}/raw` }],
    'GET /api/messages/:id/attachments/:index': [{ path: `/api/messages/${id}/attachments/0` }],
    'GET /api/messages/:id/extract': [{ path: `/api/messages/${id}/extract` }],
    'POST /api/messages/:id/status': [
      { path: `/api/messages/${id}/status`, init: json({ status: 'delivered' }) },
      { path: `/api/messages/${id}/status`, init: json({ status: 'lost' }) },
    ],
    'POST /api/messages/:id/release': [
      { path: `/api/messages/${id}/release`, init: json({ to: ['me@example.com'] }) },
      { path: `/api/messages/${id}/release`, init: json({ to: [] }) },
    ],
    'GET /api/messages/:id/check': [{ path: `/api/messages/${id}/check` }, { path: `/api/messages/${id}/check?platform=fax` }],
    'GET /api/messages/:id/render': [
      { path: `/api/messages/${id}/render?client=outlook-windows&mode=dark` },
      { path: `/api/messages/${id}/render?client=notes` },
      { path: `/api/messages/nope/render?client=yahoo` },
    ],
    'POST /api/messages/:id/check/links': [{ path: `/api/messages/${id}/check/links`, init: json({ timeout_ms: 5 }) }],
    'POST /api/check': [{ init: json({ html: '<p>Hi</p>', sender: 'acme-main' }) }, { init: json({ html: 5 }) }],
    'GET /api/senders': [{}],
    'DELETE /api/senders/daily-counts': [
      { path: '/api/senders/daily-counts?sender=test-key', init: { method: 'DELETE' } },
      { path: '/api/senders/daily-counts?team=nope', init: { method: 'DELETE' } },
    ],
    'POST /api/preview': [{ init: json({ sender: 'acme-main', html: '<p>Hi</p>' }) }, { init: json({ sender: 'nobody', html: '' }) }],
    'GET /api/senders/:sender/template': [{ path: '/api/senders/acme-main/template' }, { path: '/api/senders/nobody/template' }],
    'PUT /api/senders/:sender/template': [
      { path: '/api/senders/acme-bulk/template', init: { ...json({ html: '<div>{{content}}</div>' }), method: 'PUT' } },
      { path: '/api/senders/acme-bulk/template', init: { ...json({ html: '<div></div>' }), method: 'PUT' } },
      { path: '/api/senders/nobody/template', init: { ...json({ html: '{{content}}' }), method: 'PUT' } },
    ],
    'GET /api/senders/:sender/template/versions': [{ path: '/api/senders/acme-bulk/template/versions' }, { path: '/api/senders/nobody/template/versions' }],
    'POST /api/senders/:sender/template/revert': [
      { path: '/api/senders/acme-bulk/template/revert', init: json({}) },
      { path: '/api/senders/acme-bulk/template/revert', init: json({ version: 9 }) },
      { path: '/api/senders/nobody/template/revert', init: json({}) },
    ],
    'POST /api/senders/:sender/template/rewrap': [
      { path: '/api/senders/acme-main/template/rewrap', init: json({ html: '<i>{{content}}</i>' }) },
      { path: '/api/senders/acme-main/template/rewrap', init: json({ html: '<i></i>' }) },
      { path: '/api/senders/nobody/template/rewrap', init: json({}) },
    ],
    'GET /api/template-files': [{}],
    'GET /api/template-files/:name': [{ path: '/api/template-files/welcome.html' }],
    'PUT /api/template-files/:name/sample': [{ path: '/api/template-files/welcome.html/sample', init: { ...json({ data: {} }), method: 'PUT' } }],
    'GET /api/recipients': [{}, { path: '/api/recipients?team=nope' }],
    'POST /api/reset': [{ init: json({ team: 'globex' }) }, { init: json({ team: 'nope' }) }, { init: json({ namespace: 'docs', tema: 'x' }) }],
    'GET /api/blocks': [{}],
    'POST /api/blocks': [{ init: json({ team: 'acme', email: 'x@example.com' }) }, { init: json({ team: 'acme' }) }],
    'DELETE /api/blocks': [
      { path: '/api/blocks?team=acme&email=x@example.com', init: { method: 'DELETE' } },
      { path: '/api/blocks?team=acme&email=x@example.com', init: { method: 'DELETE' } },
    ],
    'GET /api/faults': [{}],
    'POST /api/faults': [
      { init: json({ id: 'doc', target: 'http', action: { type: 'delay', ms: 1 } }) },
      { init: json({ target: 'http', action: { type: 'nap' } }) },
    ],
    'DELETE /api/faults': [{ init: { method: 'DELETE' } }],
    'GET /api/faults/:id': [{ path: '/api/faults/doc' }, { path: '/api/faults/nope' }],
    'DELETE /api/faults/:id': [{ path: '/api/faults/doc', init: { method: 'DELETE' } }],
    'GET /api/requests': [{}, { path: '/api/requests?status=teapot' }],
    'DELETE /api/requests': [{ path: '/api/requests?before=now', init: { method: 'DELETE' } }, { init: { method: 'DELETE' } }],
    'GET /api/clock': [{}],
    'POST /api/clock/advance': [{ init: json({ duration: '1m' }) }, { init: json({ duration: 'soon' }) }],
    'POST /api/clock/set': [{ init: json({ at: '2020-01-01T00:00:00Z' }) }],
    'POST /api/clock/reset': [{ init: { method: 'POST' } }],
    'GET /api/subscriptions': [{}, { path: '/api/subscriptions?status=paused' }],
  });

  it('answers every sandbox API route with a documented status and exactly the documented body', async ({ app, v1 }) => {
    const { routeTables } = await import('../../../server/app.ts');
    const sent = (
      await read(
        await v1.post('/v1/email/send/', {
          recipient: 'doc@example.com',
          subject: 'Docs',
          body: '<p>Your code is 123456 <a href="https://example.com/x">go</a></p>',
        }),
      )
    ).body as { id: string };
    // A send refused for its key: the wait and expect samples on its recipient list it as refused.
    const refused = await fetch(`${app.url}/v1/email/send/`, {
      method: 'POST',
      headers: { Authorization: 'Api-Key no-such-key', 'Content-Type': 'application/json' },
      body: JSON.stringify({ recipient: 'refused-doc@example.com', subject: 'Docs', body: '<p>x</p>' }),
    });
    expect(refused.status).toBe(401);
    const table = samples(sent.id);
    const routes = routeTables(app.sandbox, { spamd: null }).api.flat();
    expect(routes.map((r) => `${r.method} ${r.path}`).sort()).toEqual(Object.keys(table).sort());
    // Those that empty a part of the sandbox go last.
    const last = new Set(['DELETE /api/messages', 'DELETE /api/faults', 'DELETE /api/requests']);
    const ordered = [...routes.filter((r) => !last.has(`${r.method} ${r.path}`)), ...routes.filter((r) => last.has(`${r.method} ${r.path}`))];
    let checked = 0;
    for (const route of ordered) {
      for (const sample of table[`${route.method} ${route.path}`]!) {
        const path = sample.path ?? route.path;
        const res = await fetch(app.url + path, { method: route.method, ...sample.init });
        const what = `${route.method} ${path} → ${res.status}`;
        const documented = route.doc.responses[res.status];
        expect(documented, what).toBeDefined();
        const type = res.headers.get('content-type') ?? '';
        if (type.startsWith('application/json')) {
          const body = await res.json();
          expect(documented!.body, what).toBeDefined();
          expect(documented!.body!.parse(body), what).toEqual(body);
        } else {
          await res.arrayBuffer();
          const media = Object.keys(documented!.content ?? {});
          if (res.status !== 204) expect(media.some((m) => type.startsWith(m)) || media.includes('application/octet-stream'), `${what} ${type}`).toBe(true);
        }
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(50);
  });
});
