import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { JsonValue } from '@modelcontextprotocol/ext-tasks/core';
import { createTaskSessionFromClient, type TaskEnabledSession } from '@modelcontextprotocol/ext-tasks/client';
import { afterAll, describe, expect } from 'vitest';
import { TaskStore } from '../../server/mcp/tasks.ts';
import { test as it } from '../support/fixtures.ts';
import { modern, type TestClient } from './clients.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const TASKS = 'io.modelcontextprotocol/tasks';
const FRAMING = {
  protocolVersion: '2026-07-28',
  clientInfo: { name: 'tasks-test', version: '1.0.0' },
  clientCapabilities: { extensions: { [TASKS]: {} } },
};
/** The envelope a 2026-07-28 request carries, declaring the tasks extension. */
const META = {
  'io.modelcontextprotocol/protocolVersion': FRAMING.protocolVersion,
  'io.modelcontextprotocol/clientInfo': FRAMING.clientInfo,
  'io.modelcontextprotocol/clientCapabilities': FRAMING.clientCapabilities,
};

type Rpc = { result?: Record<string, any>; error?: { code: number; message: string } };

/** One JSON-RPC request to /mcp as a 2026-07-28 HTTP client sends it (the Mcp-Method and Mcp-Name headers), with extra headers (credentials). */
async function post(url: string, method: string, params: Record<string, unknown>, headers: Record<string, string> = {}): Promise<Rpc> {
  const name = (params.name ?? params.taskId) as string | undefined;
  const response = await fetch(`${url}/mcp`, {
    method: 'POST',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      'mcp-protocol-version': '2026-07-28',
      'mcp-method': method,
      ...(name === undefined ? {} : { 'mcp-name': name }),
      ...headers,
    },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params: { ...params, _meta: { ...META, ...(params._meta as object) } } }),
  });
  return (await response.json()) as Rpc;
}

describe('waits as tasks (io.modelcontextprotocol/tasks) over Streamable HTTP', () => {
  let client: TestClient;
  let session: TaskEnabledSession;

  it.beforeAll(async ({ app }) => {
    client = await modern(new StreamableHTTPClientTransport(new URL(`${app.url}/mcp`)), { [TASKS]: {} });
    // The official tasks client of the extension; it sends its requests through this dispatch (the 2.x client cannot take a task result itself).
    session = createTaskSessionFromClient(client as never, {
      endpointId: 'pigeonhole-test',
      v2RequestFraming: FRAMING,
      rawDispatch: async (request) => {
        const { method, params } = request as { method: string; params: Record<string, unknown> };
        const answer = await post(app.url, method, params);
        return answer.error ? { kind: 'error', error: answer.error } : { kind: 'result', result: answer.result as JsonValue };
      },
    });
  });
  afterAll(async () => {
    await session.close();
    await client.close();
  });

  it('answers a 30 s wait with a task before the mail is sent; the client polls it to the result the held call gives', async ({ app, v1 }) => {
    expect(session.capabilities).toMatchObject({ execution: true, cancellation: true });
    const execution = await session.callTool(
      'wait_for_message',
      { recipient: 'task-ada@example.com', timeout_ms: 30_000 },
      { task: { preference: 'require' } },
    );
    // The call has answered, and nothing was sent yet: the answer is a task, still working.
    expect(execution.kind).toBe('task');
    const controller = session.task(execution.handle!.taskId);
    const working = await controller.snapshot();
    expect(working).toMatchObject({ status: 'working', ttl: 600_000, pollInterval: 500 });
    expect(working.taskId).toMatch(/^[A-Za-z0-9_-]{22}$/);

    await v1.post('/v1/email/send/', { recipient: 'task-ada@example.com', subject: 'Reset your password', body: '<p>Code 482913</p>' });
    const { outcome } = await execution.settle();
    expect(outcome.status).toBe('completed');
    const result = (outcome as { result: Record<string, unknown> }).result;
    expect((await controller.snapshot()).status).toBe('completed');

    // The same call held (by a client that does not declare tasks) gives the same result.
    const plain = await modern(new StreamableHTTPClientTransport(new URL(`${app.url}/mcp`)));
    const held = (await plain.callTool({ name: 'wait_for_message', arguments: { recipient: 'task-ada@example.com', timeout_ms: 30_000 } })) as Record<
      string,
      unknown
    >;
    expect(held).not.toHaveProperty('taskId');
    expect(result.content).toEqual(held.content);
    expect(result.structuredContent).toEqual(held.structuredContent);
    expect(result.structuredContent).toMatchObject({ subject: 'Reset your password', codes: ['482913'] });
    await plain.close();
  });

  it("completes with the held call's timeout error when nothing comes, as a completed task whose result is the tool error", async () => {
    const execution = await session.callTool(
      'wait_for_message',
      { recipient: 'nobody-task@example.com', timeout_ms: 300 },
      { task: { preference: 'require' } },
    );
    expect(execution.kind).toBe('task');
    const { outcome } = await execution.settle();
    expect(outcome).toMatchObject({
      status: 'completed',
      result: {
        isError: true,
        content: [{ type: 'text', text: 'Pigeonhole answered 408: {"detail":"No message matching the filters arrived within 300 ms."}' }],
      },
    });
  });

  it("runs check_message as a task too, with the held call's result", async ({ v1 }) => {
    const { id } = (await (await v1.post('/v1/email/send/', { recipient: 'check-task@example.com', subject: 'Check me', body: '<p>Hi</p>' })).json()) as {
      id: string;
    };
    const execution = await session.callTool('check_message', { id }, { task: { preference: 'require' } });
    expect(execution.kind).toBe('task');
    const { outcome } = await execution.settle();
    expect(outcome).toMatchObject({ status: 'completed', result: { structuredContent: { id, size: { gmail_clipped: false } } } });
  });

  it('cancels a wait: the wait stops at once, and the task stays cancelled when the mail comes later', async ({ app, v1 }) => {
    const waiting = () => app.sandbox.events.listenerCount('message.created');
    const before = waiting();
    const execution = await session.callTool(
      'expect_messages',
      { recipient: 'cancel-task@example.com', count: 1, within_ms: 30_000 },
      { task: { preference: 'require' } },
    );
    expect(execution.kind).toBe('task');
    const controller = session.task(execution.handle!.taskId);
    await expect.poll(waiting).toBe(before + 1);
    await execution.cancel();
    expect((await controller.snapshot()).status).toBe('cancelled');
    // The server no longer holds the expectation (not for the rest of its 30 s).
    await expect.poll(waiting).toBe(before);
    await v1.post('/v1/email/send/', { recipient: 'cancel-task@example.com', subject: 'Too late', body: '<p>late</p>' });
    const { outcome } = await execution.settle();
    expect(outcome.status).toBe('cancelled');
    expect((await controller.snapshot()).status).toBe('cancelled');
  });

  it('lets no other caller read or cancel a task, and answers a made-up id the same way', async ({ app }) => {
    const mine = { authorization: 'Basic YWRhOmNhbGxlci1h' };
    const theirs = { authorization: 'Basic Ym9iOmNhbGxlci1i' };
    const created = await post(
      app.url,
      'tools/call',
      { name: 'wait_for_message', arguments: { recipient: 'private-task@example.com', timeout_ms: 30_000 } },
      mine,
    );
    expect(created.result).toMatchObject({ resultType: 'task', status: 'working' });
    const taskId = created.result!.taskId as string;
    for (const method of ['tasks/get', 'tasks/cancel'])
      expect(await post(app.url, method, { taskId }, theirs), method).toMatchObject({ error: { code: -32602, message: `Unknown task: ${taskId}` } });
    expect(await post(app.url, 'tasks/get', { taskId: 'AAAAAAAAAAAAAAAAAAAAAA' }, mine)).toMatchObject({
      error: { code: -32602, message: 'Unknown task: AAAAAAAAAAAAAAAAAAAAAA' },
    });
    // Still working for its owner, who can cancel it.
    expect((await post(app.url, 'tasks/get', { taskId }, mine)).result).toMatchObject({ taskId, status: 'working' });
    expect((await post(app.url, 'tasks/cancel', { taskId }, mine)).result).toMatchObject({ resultType: 'complete' });
    expect((await post(app.url, 'tasks/get', { taskId }, mine)).result).toMatchObject({ taskId, status: 'cancelled' });
  });

  it('discovers the server with the extension declared, and lets a 2026-07-28 client cache the tool list for an hour', async ({ app }) => {
    const discovered = await post(app.url, 'server/discover', {});
    expect(discovered.result).toMatchObject({
      supportedVersions: ['2026-07-28'],
      capabilities: { extensions: { [TASKS]: {} } },
      resultType: 'complete',
      ttlMs: 3_600_000,
      cacheScope: 'public',
    });
    expect((await post(app.url, 'tools/list', {})).result).toMatchObject({ ttlMs: 3_600_000, cacheScope: 'public' });
    // The newest captures change: the resource list is not cached.
    expect((await post(app.url, 'resources/list', {})).result).toMatchObject({ ttlMs: 0, cacheScope: 'private' });
  });

  it('answers the tasks methods with -32021 to a request that does not declare the extension; no task ever waits for input', async ({ app }) => {
    const created = await post(app.url, 'tools/call', {
      name: 'wait_for_message',
      arguments: { recipient: 'undeclared-task@example.com', timeout_ms: 30_000 },
    });
    const taskId = created.result!.taskId as string;
    const undeclared = { _meta: { 'io.modelcontextprotocol/clientCapabilities': {} } };
    for (const method of ['tasks/get', 'tasks/update', 'tasks/cancel'])
      expect(await post(app.url, method, { taskId, ...undeclared }), method).toMatchObject({
        error: { code: -32021, data: { requiredCapabilities: { extensions: { [TASKS]: {} } } } },
      });
    expect(await post(app.url, 'tasks/update', { taskId, inputResponses: {} })).toMatchObject({
      error: { code: -32602, message: `Task ${taskId} is not waiting for input.` },
    });
    expect((await post(app.url, 'tasks/cancel', { taskId })).result).toMatchObject({ resultType: 'complete' });
  });

  it('opens a subscriptions/listen stream and acknowledges it first', async ({ app }) => {
    const abort = new AbortController();
    const response = await fetch(`${app.url}/mcp`, {
      method: 'POST',
      signal: abort.signal,
      headers: {
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
        'mcp-protocol-version': '2026-07-28',
        'mcp-method': 'subscriptions/listen',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'subscriptions/listen', params: { _meta: META, notifications: { toolsListChanged: true } } }),
    });
    expect([response.status, response.headers.get('content-type')]).toEqual([200, 'text/event-stream']);
    // The first frame arrives while the stream stays open (the response is not buffered whole).
    const reader = response.body!.getReader();
    let text = '';
    while (!text.includes('\n\n')) text += new TextDecoder().decode((await reader.read()).value);
    expect(JSON.parse(/^data: (.*)$/m.exec(text)![1]!)).toMatchObject({ method: 'notifications/subscriptions/acknowledged' });
    abort.abort();
  });

  it('holds the call as before when the request does not declare the extension', async ({ app }) => {
    const held = await post(app.url, 'tools/call', {
      name: 'wait_for_message',
      arguments: { recipient: 'nobody-held@example.com', timeout_ms: 200 },
      _meta: { 'io.modelcontextprotocol/clientCapabilities': {} },
    });
    expect(held.result).toMatchObject({ resultType: 'complete', isError: true });
    expect(held.result).not.toHaveProperty('taskId');
  });
});

describe('the task store', () => {
  it('drops a task and its result once its time to live has passed', async () => {
    const store = new TaskStore({ ttlMs: 50, pollIntervalMs: 10, maxWorking: 10 });
    const { taskId } = store.start('me', async () => ({ content: [] }));
    expect(store.get('me', taskId)).toMatchObject({ taskId, ttlMs: 50 });
    await expect.poll(() => store.size).toBe(0);
    expect(() => store.get('me', taskId)).toThrow(`Unknown task: ${taskId}`);
  });

  it('takes no more working tasks than its bound, and takes them again as they end', async () => {
    const store = new TaskStore({ ttlMs: 60_000, pollIntervalMs: 10, maxWorking: 2 });
    const ends: (() => void)[] = [];
    const run = () => new Promise<{ content: [] }>((resolve) => ends.push(() => resolve({ content: [] })));
    store.start('me', run);
    expect(store.full).toBe(false);
    store.start('me', run);
    expect(store.full).toBe(true);
    ends[0]!();
    await expect.poll(() => store.full).toBe(false);
  });
});

describe('waits as tasks over stdio (pigeonhole mcp --url)', () => {
  it('answers a task at once and its result through tasks/get', async ({ app, v1 }) => {
    const child = spawn(process.execPath, ['bin/pigeonhole.js', 'mcp', '--url', app.url], { cwd: ROOT, stdio: ['pipe', 'pipe', 'ignore'] });
    const lines = createInterface({ input: child.stdout! });
    const answers = new Map<number, (rpc: Rpc) => void>();
    lines.on('line', (line) => {
      const message = JSON.parse(line) as Rpc & { id?: number };
      if (message.id !== undefined) answers.get(message.id)?.(message);
    });
    let id = 0;
    const request = (method: string, params: Record<string, unknown>) =>
      new Promise<Rpc>((resolve) => {
        id += 1;
        answers.set(id, resolve);
        child.stdin!.write(`${JSON.stringify({ jsonrpc: '2.0', id, method, params: { ...params, _meta: META } })}\n`);
      });
    try {
      const created = await request('tools/call', { name: 'wait_for_message', arguments: { recipient: 'stdio-task@example.com', timeout_ms: 30_000 } });
      expect(created.result).toMatchObject({ resultType: 'task', status: 'working', ttlMs: 600_000, pollIntervalMs: 500 });
      const taskId = created.result!.taskId as string;
      await v1.post('/v1/email/send/', { recipient: 'stdio-task@example.com', subject: 'Over stdio', body: '<p>hi</p>' });
      await expect
        .poll(async () => (await request('tasks/get', { taskId })).result)
        .toMatchObject({ taskId, status: 'completed', result: { structuredContent: { subject: 'Over stdio' } } });
    } finally {
      child.kill();
    }
  });
});
