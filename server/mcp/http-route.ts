import { createHash } from 'node:crypto';
import type { RequestListener } from 'node:http';
import { pipeline, Readable } from 'node:stream';
import type { ReadableStream as NodeReadableStream } from 'node:stream/web';
import type Router from '@koa/router';
import type { Context } from 'koa';
import { PigeonholeClient } from '../../client/pigeonhole-client.ts';
import { lazy } from '../domain/lazy.ts';
import { jsonShapeProblem } from '../http/json-shape.ts';

export interface McpRouteOptions {
  /** This app's request handler, for the tools' in-process calls (read when a call is made). */
  dispatch: () => RequestListener;
  /** Largest JSON-RPC body in bytes. */
  maxBodySize: number;
  version: string;
}

/** Headers of the /mcp request that its in-process calls carry on: the same host, the same login. */
const CARRIED = ['host', 'authorization', 'cookie'];

/**
 * MCP over Streamable HTTP at /mcp, as a Koa route: it sits behind every global middleware of
 * the app (metrics, errors, and whatever origin, host or login check runs first), like any
 * other route. Both protocol revisions, told apart per request by the SDK's own test
 * (`isLegacyRequest`): 2025-11-25 requests exactly as before (stateless: each POST gets a fresh
 * server and transport, answered with JSON), 2026-07-28 ones (the per-request `_meta`
 * envelope) by the SDK's handler. A tool that waits holds its POST, as
 * GET /api/messages/wait does, unless the caller declared the tasks extension. The one stream
 * is a 2026-07-28 `subscriptions/listen` POST; there are no sessions, so GET and DELETE answer
 * 405 as the protocol allows.
 */
export function mountMcp(router: Router, options: McpRouteOptions): void {
  /** The SDK and the tools load with the first /mcp request, not with the server; the tasks are the app's. */
  const sdk = lazy(async () => {
    const [mcp, { inProcessFetch }, { createMcpServer }, { TaskStore }, { skillCatalog }] = await Promise.all([
      import('@modelcontextprotocol/server'),
      import('./in-process-fetch.ts'),
      import('./tools.ts'),
      import('./tasks.ts'),
      import('./skills.ts'),
    ]);
    return { mcp, inProcessFetch, createMcpServer, tasks: new TaskStore(), skills: await skillCatalog() };
  });

  router.post('/mcp', async (ctx) => {
    const headers: Record<string, string> = {};
    for (const name of CARRIED) {
      const value = ctx.get(name);
      if (value !== '') headers[name] = value;
    }
    const { mcp, inProcessFetch, createMcpServer, tasks, skills } = await sdk();
    const fetch = inProcessFetch(options.dispatch, { headers, remoteAddress: ctx.req.socket.remoteAddress });
    const client = new PigeonholeClient({ baseUrl: `${ctx.protocol}://${ctx.host}`, fetch });
    // The servers built for this request call the sandbox with its host and credentials.
    const server = () => createMcpServer(client, { version: options.version, tasks, owner: owner(headers), skills });
    // The body is read whole (it is small: the sandbox API's limit) and its shape counted before
    // the SDK's JSON.parse can hold the event loop on one nested or wide past reason (docs/security.md).
    const body = await readBody(ctx, options.maxBodySize);
    if (typeof body === 'string') {
      rpcError(ctx, body === TOO_LARGE ? 413 : 400, body === TOO_LARGE ? `Request body exceeds the limit of ${options.maxBodySize} bytes.` : body);
      return;
    }
    const request = webRequest(ctx, body);
    if (await mcp.isLegacyRequest(request, undefined, { maxRequestBodySize: options.maxBodySize })) {
      // 2025-11-25, as before: a fresh server and transport, answered with JSON.
      const legacy = server();
      const transport = new mcp.WebStandardStreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: true,
        maxRequestBodySize: options.maxBodySize,
      });
      try {
        await legacy.connect(transport);
        await answer(ctx, await transport.handleRequest(request));
      } finally {
        await legacy.close();
      }
      return;
    }
    // 2026-07-28: the SDK's handler (per-request envelope, server/discover, subscriptions/listen).
    const handler = mcp.createMcpHandler(server, { legacy: 'reject', maxRequestBodySize: options.maxBodySize });
    let streaming = false;
    try {
      streaming = await answer(ctx, await handler.fetch(request));
    } finally {
      // A stream keeps its handler until the client or the server ends it.
      if (streaming) ctx.res.once('close', () => void handler.close());
      else await handler.close();
    }
  });

  router.get('/mcp', methodNotAllowed);
  router.delete('/mcp', methodNotAllowed);
}

/** A caller, for the tasks: its credentials (the sandbox login's header or cookie), never stored as they are. */
function owner(headers: Record<string, string>): string {
  return createHash('sha256')
    .update(`${headers.authorization ?? ''}\n${headers.cookie ?? ''}`)
    .digest('base64url');
}

function methodNotAllowed(ctx: Context): void {
  ctx.status = 405;
  ctx.set('Allow', 'POST');
  ctx.body = {
    jsonrpc: '2.0',
    error: { code: -32000, message: 'Method not allowed: this server answers POST only (no session, no server-sent stream).' },
    id: null,
  };
}

const TOO_LARGE = 'too large';

/** The request's body, or why it is refused: TOO_LARGE past `limit` bytes, or jsonShapeProblem's reason. */
async function readBody(ctx: Context, limit: number): Promise<Buffer | string> {
  if (Number(ctx.get('content-length') || 0) > limit) return TOO_LARGE;
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) {
      // The rest is read and dropped, so the client hears the answer instead of a reset.
      ctx.req.resume();
      return TOO_LARGE;
    }
    chunks.push(chunk);
  }
  const body = Buffer.concat(chunks);
  const problem = jsonShapeProblem(body);
  return problem === null ? body : `Parse error: the JSON body is ${problem}.`;
}

/** A JSON-RPC error with no id, as the SDK answers a body it cannot take. */
function rpcError(ctx: Context, status: number, message: string): void {
  ctx.status = status;
  ctx.body = { jsonrpc: '2.0', error: { code: -32700, message }, id: null };
}

function webRequest(ctx: Context, body: Buffer): Request {
  const headers = new Headers();
  for (const [name, value] of Object.entries(ctx.req.headers)) {
    for (const item of Array.isArray(value) ? value : value === undefined ? [] : [value]) headers.append(name, item);
  }
  return new Request(`${ctx.protocol}://${ctx.host}${ctx.originalUrl}`, {
    method: ctx.method,
    headers,
    body,
  } as RequestInit);
}

/** Writes the SDK's answer on the Koa response; true when it is a stream, still open. */
async function answer(ctx: Context, response: Response): Promise<boolean> {
  response.headers.forEach((value, name) => {
    ctx.set(name, value);
  });
  ctx.status = response.status;
  if (response.body !== null && response.headers.get('content-type')?.startsWith('text/event-stream')) {
    // A stream (2026-07-28 subscriptions/listen): passed on as it comes, ended by either side;
    // a client that goes away is the normal end of it, not an error.
    ctx.respond = false;
    ctx.res.writeHead(ctx.status, ctx.response.headers as Record<string, string>);
    pipeline(Readable.fromWeb(response.body as NodeReadableStream<Uint8Array>), ctx.res, () => undefined);
    return true;
  }
  // An explicit empty body keeps the status (202 for notifications) instead of Koa's 204.
  ctx.body = response.body === null ? null : Buffer.from(await response.arrayBuffer());
  ctx.status = response.status;
  return false;
}
