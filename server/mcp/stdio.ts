import { serveStdio } from '@modelcontextprotocol/server/stdio';
import { PigeonholeClient } from '../../client/pigeonhole-client.ts';
import { skillCatalog } from './skills.ts';
import { TaskStore } from './tasks.ts';
import { createMcpServer } from './tools.ts';

/**
 * `pigeonhole mcp --url ...`: the MCP server on stdin/stdout for clients that start a command,
 * in whichever protocol revision the client opens with (2025-11-25 `initialize`, or 2026-07-28
 * `server/discover`). Its tools call the sandbox at `baseUrl` over HTTP. The process ends when
 * the client closes its input.
 */
export async function runStdioMcp(baseUrl: string, version: string): Promise<void> {
  const client = new PigeonholeClient({ baseUrl });
  const tasks = new TaskStore();
  const skills = await skillCatalog();
  serveStdio(() => createMcpServer(client, { version, tasks, owner: 'stdio', skills }));
}
