import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, describe, expect } from 'vitest';
import { test as it } from '../support/fixtures.ts';

type ToolResult = { content: { type: string; text: string }[]; isError?: boolean };

describe('the MCP tool expect_messages', () => {
  const client = new Client({ name: 'pigeonhole-test', version: '1.0.0' });
  const call = async (args: Record<string, unknown>) => (await client.callTool({ name: 'expect_messages', arguments: args })) as ToolResult;

  it.beforeAll(async ({ app }) => {
    await client.connect(new StreamableHTTPClientTransport(new URL(`${app.url}/mcp`)));
  });
  afterAll(() => client.close());

  it('answers the exact count with the matches, and a tool error with the count and the matches otherwise', async ({ v1 }) => {
    const { id } = (await (
      await v1.post('/v1/email/send/', { recipient: 'ada+agent@example.com', subject: 'Your code', body: '<p>Your code is 482913</p>' })
    ).json()) as {
      id: string;
    };
    const ok = await call({ namespace: 'agent', count: 1, within_ms: 0 });
    expect(ok.isError).toBeFalsy();
    const found = JSON.parse(ok.content[0]!.text);
    expect(found).toMatchObject({ count: 1, messages: [{ id, namespace: 'agent', subject: 'Your code', codes: ['482913'], links: [] }] });
    expect(found.messages[0]).not.toHaveProperty('html');

    const none = await call({ namespace: 'agent', count: 0, within_ms: 60000 });
    expect(none.isError).toBe(true);
    const prefix = 'Pigeonhole answered 409: ';
    expect(none.content[0]!.text.startsWith(prefix)).toBe(true);
    const body = JSON.parse(none.content[0]!.text.slice(prefix.length));
    expect(body).toEqual({ detail: 'Expected no message matching the filters; 1 matched.', count: 1, messages: [found.messages[0]] });

    const fewer = await call({ namespace: 'agent', count: 2, within_ms: 50 });
    expect(fewer.isError).toBe(true);
    expect(fewer.content[0]!.text).toContain(
      'Pigeonhole answered 408: {"detail":"Expected 2 messages matching the filters within 50 ms; 1 matched.","count":1,',
    );
  });
});
