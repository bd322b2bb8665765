import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { PigeonholeClient } from '../../client/pigeonhole-client.ts';
import { createMcpServer } from './tools.ts';

/**
 * `pigeonhole mcp --url ...`: the MCP server on stdin/stdout for clients that start a command.
 * Its tools call the sandbox at `baseUrl` over HTTP. Resolves once it is listening; the process
 * ends when the client closes its input.
 */
export async function runStdioMcp(baseUrl: string, version: string): Promise<void> {
  const server = createMcpServer(new PigeonholeClient({ baseUrl }), { version });
  await server.connect(new StdioServerTransport());
}
