import { z } from 'zod';
import type { DocumentedRoute } from './route-doc.ts';

/** /mcp: the Model Context Protocol endpoint (Streamable HTTP, stateless, JSON answers). */

const tags = ['mcp'];
const jsonRpc = z.looseObject({}).describe('A JSON-RPC 2.0 message (or a batch): initialize, tools/list, tools/call, resources/list, resources/read, ...');
const rpcError = z.object({ jsonrpc: z.string(), error: z.looseObject({}), id: z.null() });
const refusal = (description: string, code: number, message: string) => ({
  description,
  body: rpcError,
  example: { jsonrpc: '2.0', error: { code, message }, id: null },
});
const notAllowed = refusal(
  'Only POST is served: no sessions, no server-sent stream. `Allow: POST`.',
  -32000,
  'Method not allowed: this server answers POST only (no session, no server-sent stream).',
);

export const mcpDocs: DocumentedRoute[] = [
  {
    method: 'POST',
    path: '/mcp',
    body: jsonRpc,
    doc: {
      summary: 'MCP over Streamable HTTP',
      description:
        "The Model Context Protocol for coding agents (see docs/mcp.md): tools to send through /v1, list, read, wait for and extract captures, check them, move the clock, set outcomes, add faults and reset; resources for a capture's .eml and HTML. Stateless: every POST is answered with JSON (`Accept: application/json, text/event-stream` as the protocol asks); a waiting tool holds its POST.",
      tags,
      responses: {
        200: { description: 'The JSON-RPC answer(s).', body: jsonRpc },
        202: { description: 'Only notifications or responses were posted; no body.' },
        400: refusal('Not JSON, or not a JSON-RPC message.', -32700, 'Parse error: Invalid JSON'),
        406: refusal(
          'The Accept header lacks application/json or text/event-stream.',
          -32000,
          'Not Acceptable: Client must accept both application/json and text/event-stream',
        ),
        413: refusal('Body over --max-body-size.', -32000, 'Payload Too Large: Request body must not exceed 26214400 bytes'),
        415: refusal('Not application/json.', -32000, 'Unsupported Media Type: Content-Type must be application/json'),
      },
    },
  },
  { method: 'GET', path: '/mcp', doc: { summary: 'No server-sent stream', tags, responses: { 405: notAllowed } } },
  { method: 'DELETE', path: '/mcp', doc: { summary: 'No sessions to end', tags, responses: { 405: notAllowed } } },
];
