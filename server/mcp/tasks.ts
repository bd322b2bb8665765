import { randomBytes } from 'node:crypto';
import {
  type CallToolResult,
  type McpServer,
  MissingRequiredClientCapabilityError,
  ProtocolError,
  ProtocolErrorCode,
  type ServerContext,
} from '@modelcontextprotocol/server';
import { z } from 'zod';

/**
 * Waits as tasks (the tasks extension, `io.modelcontextprotocol/tasks`, protocol 2026-07-28):
 * when a request declares the extension in its `_meta` client capabilities, a tool that may
 * wait answers a task at once and runs on; the client polls `tasks/get` until the task is
 * `completed` (with the very result the held call gives: a tool error is a completed task
 * whose result has `isError`), or cancels it with `tasks/cancel`. Without the extension
 * nothing changes.
 *
 * Tasks live in memory, in one store per HTTP app (its /mcp requests are stateless, so the
 * store outlives them) or per stdio process. A task id is 128 random bits, and a task answers
 * only the caller that made it (the same credentials on HTTP): another caller, a wrong id and
 * an expired task get the same "Unknown task" error. A task is dropped `ttlMs` after it was
 * created; there is no `tasks/list`.
 */

const TASKS_EXTENSION = 'io.modelcontextprotocol/tasks';
const CLIENT_CAPABILITIES = 'io.modelcontextprotocol/clientCapabilities';

export interface TaskStoreOptions {
  /** How long a task (and its result) is kept after it was created. */
  ttlMs: number;
  /** How often the client is told to poll. */
  pollIntervalMs: number;
  /** Tasks still working at once, at most; past it a call is held as without the extension. */
  maxWorking: number;
}
const TASK_DEFAULTS: TaskStoreOptions = { ttlMs: 10 * 60_000, pollIntervalMs: 500, maxWorking: 1000 };

type Status = 'working' | 'completed' | 'cancelled';
interface Task {
  owner: string;
  status: Status;
  createdAt: string;
  lastUpdatedAt: string;
  result?: CallToolResult;
  abort: AbortController;
  expiry: NodeJS.Timeout;
}

/** The tasks of one HTTP app or one stdio process. */
export class TaskStore {
  readonly #tasks = new Map<string, Task>();
  #working = 0;
  constructor(readonly options: TaskStoreOptions = TASK_DEFAULTS) {}

  /** Starts `run` as a task of `owner` and answers the task as `tools/call` returns it. */
  start(owner: string, run: (signal: AbortSignal) => Promise<CallToolResult>) {
    const taskId = randomBytes(16).toString('base64url');
    const now = new Date().toISOString();
    const expiry = setTimeout(() => this.drop(taskId), this.options.ttlMs);
    expiry.unref();
    const task: Task = { owner, status: 'working', createdAt: now, lastUpdatedAt: now, abort: new AbortController(), expiry };
    this.#tasks.set(taskId, task);
    this.#working += 1;
    void run(task.abort.signal).then((result) => {
      this.#working -= 1;
      if (task.status !== 'working') return;
      task.status = 'completed';
      // As a 2026-07-28 tools/call answers it on the wire.
      task.result = { ...result, resultType: 'complete' };
      task.lastUpdatedAt = new Date().toISOString();
    });
    return { resultType: 'task' as const, ...this.#view(taskId, task) };
  }

  /** `tasks/get`: the task as it stands, with its result once completed. */
  get(owner: string, taskId: string) {
    const task = this.#find(owner, taskId);
    return { resultType: 'complete' as const, ...this.#view(taskId, task), ...(task.status === 'completed' ? { result: task.result } : {}) };
  }

  /** `tasks/cancel`: stops the wait; a task that already ended stays as it is. */
  cancel(owner: string, taskId: string) {
    const task = this.#find(owner, taskId);
    if (task.status === 'working') {
      task.status = 'cancelled';
      task.lastUpdatedAt = new Date().toISOString();
      task.abort.abort();
    }
    return { resultType: 'complete' as const };
  }

  /** How many tasks are held (for tests of the expiry). */
  get size(): number {
    return this.#tasks.size;
  }

  /** As many tasks are working as the store takes: new calls are held instead. */
  get full(): boolean {
    return this.#working >= this.options.maxWorking;
  }

  private drop(taskId: string): void {
    const task = this.#tasks.get(taskId);
    if (task === undefined) return;
    task.abort.abort();
    clearTimeout(task.expiry);
    this.#tasks.delete(taskId);
  }

  #find(owner: string, taskId: string): Task {
    const task = this.#tasks.get(taskId);
    if (task === undefined || task.owner !== owner) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown task: ${taskId}`);
    return task;
  }

  #view(taskId: string, task: Task) {
    return {
      taskId,
      status: task.status,
      createdAt: task.createdAt,
      lastUpdatedAt: task.lastUpdatedAt,
      ttlMs: this.options.ttlMs,
      pollIntervalMs: this.options.pollIntervalMs,
    };
  }
}

/** What a tool registration needs of the tasks: whether this request gets one (declared, and the store not full), and starting it. */
export interface TaskRunner {
  declared(ctx: ServerContext): boolean;
  start(run: (signal: AbortSignal) => Promise<CallToolResult>, ctx: ServerContext): CallToolResult;
}

const TaskParams = z.object({ taskId: z.string().min(1) });

/** Serves `tasks/get`, `tasks/update` and `tasks/cancel` from `store` on one server, for one caller, and declares the extension. */
export function attachTasks(server: McpServer, store: TaskStore, owner: string): TaskRunner {
  const declared = (ctx: ServerContext) => {
    const envelope = ctx.mcpReq.envelope as Record<string, { extensions?: Record<string, unknown> } | undefined> | undefined;
    return envelope?.[CLIENT_CAPABILITIES]?.extensions?.[TASKS_EXTENSION] !== undefined;
  };
  /** The tasks methods answer only a request that declares the extension (-32021 otherwise, as SEP-2575 says). */
  const guarded =
    <T>(answer: (taskId: string) => T) =>
    async ({ taskId }: { taskId: string }, ctx: ServerContext) => {
      if (!declared(ctx))
        throw new MissingRequiredClientCapabilityError(
          { requiredCapabilities: { extensions: { [TASKS_EXTENSION]: {} } } },
          `This method needs the ${TASKS_EXTENSION} extension in the request's client capabilities.`,
        );
      return answer(taskId) as never;
    };
  server.server.registerCapabilities({ extensions: { [TASKS_EXTENSION]: {} } });
  server.server.setRequestHandler(
    'tasks/get',
    { params: TaskParams },
    guarded((taskId) => store.get(owner, taskId)),
  );
  server.server.setRequestHandler(
    'tasks/cancel',
    { params: TaskParams },
    guarded((taskId) => store.cancel(owner, taskId)),
  );
  // No task here ever asks for input: an update is refused, for a task the caller may see.
  server.server.setRequestHandler(
    'tasks/update',
    { params: TaskParams.passthrough() },
    guarded((taskId) => {
      store.get(owner, taskId);
      throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Task ${taskId} is not waiting for input.`);
    }),
  );
  return { declared: (ctx) => declared(ctx) && !store.full, start: (run) => store.start(owner, run) as unknown as CallToolResult };
}
