import { fileURLToPath } from 'node:url';
import { Client as ModernClient, StreamableHTTPClientTransport as ModernHttp } from '@modelcontextprotocol/client';
import { StdioClientTransport as ModernStdio } from '@modelcontextprotocol/client/stdio';
import { Client as LegacyClient } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as LegacyStdio } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport as LegacyHttp } from '@modelcontextprotocol/sdk/client/streamableHttp.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const stdioArgs = (url: string) => ({ command: process.execPath, args: ['bin/pigeonhole.js', 'mcp', '--url', url], cwd: ROOT, stderr: 'pipe' as const });

/** What the tests ask of an MCP client, whichever SDK line it comes from. */
export interface TestClient {
  callTool(params: { name: string; arguments?: Record<string, unknown> }): Promise<unknown>;
  listTools(): Promise<{
    tools: { name: string; description?: string; inputSchema: { type: string; properties?: object }; annotations?: object; _meta?: object }[];
  }>;
  listResources(): Promise<{ resources: { uri: string; name: string; mimeType?: string }[] }>;
  listResourceTemplates(): Promise<{ resourceTemplates: { uriTemplate: string }[] }>;
  readResource(params: { uri: string }): Promise<{ contents: unknown[] }>;
  getInstructions(): string | undefined;
  close(): Promise<void>;
}

/** The protocol revision each client speaks: the 1.x SDK's 2025-11-25, the 2.x SDK's 2026-07-28 (pinned, so a fallback cannot pass unseen). */
export const PROTOCOLS = { '2025-11-25': '2025-11-25', '2026-07-28': '2026-07-28' } as const;

/**
 * The four ways an agent reaches the server: each protocol revision over each transport, with
 * the SDK of that revision. `connect` resolves once the client has negotiated, and checks that
 * it negotiated the revision named.
 */
export const CLIENTS: [string, 'http' | 'stdio', keyof typeof PROTOCOLS, (url: string) => Promise<TestClient>][] = [
  ['2025-11-25 over Streamable HTTP at /mcp', 'http', '2025-11-25', async (url) => legacy(new LegacyHttp(new URL(`${url}/mcp`)))],
  ['2025-11-25 over stdio (pigeonhole mcp --url)', 'stdio', '2025-11-25', async (url) => legacy(new LegacyStdio(stdioArgs(url)))],
  ['2026-07-28 over Streamable HTTP at /mcp', 'http', '2026-07-28', async (url) => modern(new ModernHttp(new URL(`${url}/mcp`)))],
  ['2026-07-28 over stdio (pigeonhole mcp --url)', 'stdio', '2026-07-28', async (url) => modern(new ModernStdio(stdioArgs(url)))],
];

async function legacy(transport: LegacyHttp | LegacyStdio): Promise<TestClient> {
  const client = new LegacyClient({ name: 'pigeonhole-test', version: '1.0.0' });
  await client.connect(transport);
  if (client.getServerVersion()?.name !== 'pigeonhole') throw new Error('not connected to pigeonhole');
  return client as unknown as TestClient;
}

/** A 2.x client pinned to 2026-07-28, with `extensions` declared per request when given. */
export async function modern(transport: ModernHttp | ModernStdio, extensions?: Record<string, Record<string, never>>): Promise<TestClient & ModernClient> {
  const client = new ModernClient(
    { name: 'pigeonhole-test', version: '1.0.0' },
    { versionNegotiation: { mode: { pin: PROTOCOLS['2026-07-28'] } }, ...(extensions ? { capabilities: { extensions } } : {}) },
  );
  await client.connect(transport);
  const version = client.getNegotiatedProtocolVersion();
  if (version !== '2026-07-28') throw new Error(`negotiated ${version}, not 2026-07-28`);
  return client as unknown as TestClient & ModernClient;
}
