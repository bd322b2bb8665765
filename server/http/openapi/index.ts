import type Router from '@koa/router';
import { checkPaths, checkSchemas } from './api-checks.ts';
import { messagePaths, inboxPaths } from './api-messages.ts';
import { flowPaths, healthPaths, toolkitPaths } from './api-toolkit.ts';
import { schemas } from './components.ts';
import type { Json, Paths } from './helpers.ts';
import { mcpPaths } from './mcp.ts';
import { v1Paths } from './v1.ts';

/** The OpenAPI 3.1 document of both APIs, assembled from one module per resource. */
export function openApiDocument(): Json {
  const parts: Paths[] = [v1Paths, messagePaths, inboxPaths, toolkitPaths, flowPaths, healthPaths, mcpPaths, checkPaths];
  const paths: Paths = {};
  for (const part of parts) for (const [path, item] of Object.entries(part)) paths[path] = { ...paths[path], ...item };
  return {
    openapi: '3.1.0',
    info: {
      title: 'Pigeonhole',
      version: '0.1.0',
      description:
        'A local sandbox for a transactional email service. /v1 emulates the service (Authorization: Api-Key <key>); /api is the sandbox\'s own API (no key). Nothing is delivered: every accepted email is captured. Any authenticated /v1 request may also get a 429, 500, 503, a delay or a dropped connection when a fault rule (/api/faults) fires.',
    },
    servers: [{ url: 'http://localhost:8025' }],
    tags: [
      { name: 'v1', description: 'The emulated service.' },
      { name: 'messages', description: 'Captured mail.' },
      { name: 'toolkit', description: 'Reset, blocks, faults, request log.' },
      { name: 'mcp', description: 'The MCP server for coding agents.' },
      { name: 'checks', description: 'Compatibility, size, accessibility, dark mode, headers, spam and links of an email (docs/checks.md).' },
    ],
    paths,
    components: {
      schemas: { ...schemas, ...checkSchemas },
      securitySchemes: {
        ApiKey: { type: 'apiKey', in: 'header', name: 'Authorization', description: 'The word Api-Key, one space, the key: `Authorization: Api-Key test-key`.' },
      },
    },
  };
}

export function mountOpenApi(router: Router): void {
  const document = JSON.stringify(openApiDocument());
  router.get('/api/openapi.json', (ctx) => {
    ctx.type = 'application/json';
    ctx.body = document;
  });
}
