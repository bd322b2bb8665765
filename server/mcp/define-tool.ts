import type { CallToolResult, ClientCapabilities, McpServer, ServerContext } from '@modelcontextprotocol/server';
import { z } from 'zod';
import { VIEW_META_KEY } from './app-view.ts';
import type { TaskRunner } from './tasks.ts';
import { failure, result, UNTRUSTED_NOTE } from './untrusted.ts';

/**
 * What a tool does, as MCP's annotations tell a client (which may ask the user before a
 * destructive call), and whether its answer carries captured mail (wrapped as untrusted data,
 * and the description says so). Every tool says which: when in doubt, it carries mail.
 */
export interface ToolKind {
  readOnly: boolean;
  destructive?: boolean;
  idempotent?: boolean;
  mail: boolean;
}
/** Reads captures (or what senders put in them: names, addresses). */
export const READS_MAIL: ToolKind = { readOnly: true, mail: true };
/** Reads the sandbox's own state. */
export const READS: ToolKind = { readOnly: true, mail: false };
/** Adds something (a capture, a rule) or moves the clock; deletes nothing. */
export const CHANGES: ToolKind = { readOnly: false, destructive: false, idempotent: false, mail: false };
/** Deletes or overwrites: the same call twice has the effect of one. */
export const DESTROYS: ToolKind = { readOnly: false, destructive: true, idempotent: true, mail: false };

/**
 * What a tool offers beyond its answer: the email view (MCP Apps) of the captures its answer
 * names (`view` picks their ids), and a task when the caller declares the tasks extension.
 */
interface ToolExtras {
  view?: (value: never) => string[];
  task?: boolean;
}

/** The email view, when it was built: its URI, and what it shows for some captures. */
interface ToolView {
  uri: string;
  payload(tool: string, ids: string[], signal: AbortSignal): Promise<unknown>;
}

/** What every tool registration needs. */
export interface ToolHost {
  server: McpServer;
  /** The sandbox the tools call, for the "cannot reach" message. */
  baseUrl: string;
  view: ToolView | null;
  tasks: TaskRunner;
}

type Args<T extends z.ZodRawShape> = z.infer<z.ZodObject<T>>;
type ToolHandler<T extends z.ZodRawShape> = (args: Args<T>, signal: AbortSignal) => Promise<unknown>;
export type DefineTool = <T extends z.ZodRawShape>(
  name: string,
  description: string,
  shape: T,
  handler: ToolHandler<T>,
  kind: ToolKind,
  extras?: ToolExtras,
) => void;

/**
 * Whether the caller may render the view: it declared MCP Apps in this request (2026-07-28) or
 * when it connected (2025-11-25 over stdio). A 2025-11-25 request over HTTP is answered by a
 * server that never saw the client's `initialize` (stateless), so it always gets the view's data.
 */
function wantsView(server: McpServer, ctx: ServerContext): boolean {
  const envelope = ctx.mcpReq.envelope as Record<string, ClientCapabilities | undefined> | undefined;
  const capabilities = envelope?.[CLIENT_CAPABILITIES] ?? server.server.getClientCapabilities();
  if (capabilities === undefined) return true;
  return capabilities.extensions?.[UI_EXTENSION] !== undefined;
}

const CLIENT_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';
const UI_EXTENSION = 'io.modelcontextprotocol/ui';

/** The URI key of MCP Apps' tool `_meta` (older hosts read the flat key, newer ones `ui.resourceUri`). */
const RESOURCE_URI_META_KEY = 'ui/resourceUri';

/**
 * Registers tools whose handler returns a value sent back as JSON (see `result`); errors become
 * tool errors. A tool with `task` answers a task at once when the request declares the tasks
 * extension, and the same result later through `tasks/get`.
 */
export function toolDefiner(host: ToolHost): DefineTool {
  return (name, description, shape, handler, kind, extras = {}) => {
    host.server.registerTool(
      name,
      {
        description: kind.mail ? description + UNTRUSTED_NOTE : description,
        inputSchema: z.object(shape),
        annotations: {
          readOnlyHint: kind.readOnly,
          ...(kind.readOnly ? {} : { destructiveHint: kind.destructive, idempotentHint: kind.idempotent }),
          openWorldHint: false,
        },
        ...(extras.view && host.view ? { _meta: { ui: { resourceUri: host.view.uri }, [RESOURCE_URI_META_KEY]: host.view.uri } } : {}),
      },
      (async (args: Args<typeof shape>, ctx: ServerContext) => {
        const run = async (signal: AbortSignal): Promise<CallToolResult> => {
          try {
            const value = await handler(args, signal);
            const answer = result(value, kind.mail);
            if (extras.view && host.view && wantsView(host.server, ctx)) {
              // What the view shows travels beside the answer (hosts give `_meta` to the view, not to the model); without it the view says so.
              const payload = await host.view.payload(name, extras.view(value as never), signal).catch(() => null);
              if (payload !== null) answer._meta = { [VIEW_META_KEY]: payload };
            }
            return answer;
          } catch (error) {
            return failure(error, host.baseUrl, kind.mail);
          }
        };
        if (extras.task && host.tasks.declared(ctx)) return host.tasks.start(run, ctx);
        return run(ctx.mcpReq.signal);
      }) as never,
    );
  };
}
