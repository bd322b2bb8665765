import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { createRouter } from '../../server/app.ts';
import { createSandboxMetrics } from '../../server/metrics.ts';
import { read, useApp } from '../support/app.ts';

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;
const app = useApp();

type Doc = { openapi: string; paths: Record<string, Record<string, { responses?: object; 'x-websocket'?: boolean }>>; components: { schemas: Record<string, unknown> } };

async function servedRoutes(): Promise<Set<string>> {
  const { sandbox, dataDir } = app.server;
  const { metrics } = createSandboxMetrics({ sandbox, store: app.server.store, processMetrics: false });
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
      const res = await app.v1.request('OPTIONS', (layer.path as string).replace(/:(\w+)/g, 'X'));
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
  it('is an OpenAPI 3.1 document whose every $ref resolves', async () => {
    const res = await read(await fetch(`${app.url}/api/openapi.json`));
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const doc = res.body as Doc;
    expect(doc.openapi).toBe('3.1.0');
    const refs = [...res.text.matchAll(/"\$ref":"#\/components\/schemas\/([^"]+)"/g)].map((m) => m[1]!);
    expect(refs.length).toBeGreaterThan(20);
    expect(refs.filter((name) => !(name in doc.components.schemas))).toEqual([]);
    for (const [p, item] of Object.entries(doc.paths)) for (const method of METHODS) if (item[method]) expect(item[method]!.responses, `${method} ${p}`).toBeDefined();
  });

  it('documents every route the router serves, and serves every documented route', async () => {
    const doc = (await read(await fetch(`${app.url}/api/openapi.json`))).body as Doc;
    const served = await servedRoutes();
    const documented = specRoutes(doc);
    const undocumented = [...served].filter((r) => !documented.has(r)).sort();
    const unserved = [...documented].filter((r) => !served.has(r)).sort();
    expect({ undocumented, unserved }).toEqual({ undocumented: [], unserved: [] });
    expect(served.has('POST /v1/email/send/')).toBe(true);
    expect(served.has('DELETE /v1/flows/subscriptions/')).toBe(true);
    expect(served.has('GET /api/messages/wait')).toBe(true);
    expect(served.size).toBeGreaterThan(30);
  });

  it('gives the /v1 error bodies exactly as the server sends them', async () => {
    const doc = (await read(await fetch(`${app.url}/api/openapi.json`))).body as any;
    const example = (p: string, method: string, status: number) => doc.paths[p][method].responses[status].content['application/json'].example;
    const unauthorized = await read(await fetch(`${app.url}/v1/email/list/`));
    expect(example('/v1/email/list/', 'get', 401)).toEqual(unauthorized.body);
    const missing = await read(await app.v1.get('/v1/email/delivery/'));
    expect(example('/v1/email/delivery/', 'get', 400)).toEqual(missing.body);
    const unknown = await read(await app.v1.get('/v1/email/delivery/XXXX/'));
    expect(example('/v1/email/delivery/{id}/', 'get', 404)).toEqual(unknown.body);
    const noIdentifier = await read(await app.v1.get('/v1/email/detail/'));
    expect(example('/v1/email/detail/', 'get', 400)).toEqual(noIdentifier.body);
  });
});
