import { describe, expect } from 'vitest';
import { api, read } from '../support/app.ts';
import { test as it } from '../support/fixtures.ts';
import { CLIENTS, type TestClient } from './clients.ts';

const V1 = '<html><body><div class="mcp-v1">{{content}}</div></body></html>';
const DRAFT = '<main class="draft">{{content}}</main>';
type ToolResult = { content: { type: string; text: string }[]; structuredContent?: any; isError?: boolean };

/** The account-template tools over each transport and protocol revision, on an app of the test's own. */
describe.each(CLIENTS)('the template tools, protocol %s', (_name, _transport, _protocol, connect) => {
  it('save through MCP wraps the next /v1 send; versions, revert, rewrap of the capture; a save without {{content}} is the tool error', async ({
    freshApp,
    onTestFinished,
  }) => {
    const client: TestClient = await connect(freshApp.url);
    onTestFinished(() => client.close());
    // A tool's result without its `_meta` (on 2026-07-28 it names the server).
    const call = async (name: string, args: Record<string, unknown>) => {
      const { _meta, ...result } = (await client.callTool({ name, arguments: args })) as ToolResult & { _meta?: unknown };
      return result as ToolResult;
    };
    const configured = freshApp.sandbox.directory.sender('acme-main')!.sender.accountTemplate;

    expect((await call('get_template', { sender: 'acme-main' })).structuredContent).toEqual({
      sender: 'acme-main',
      version: 0,
      html: configured,
      saved_at: null,
      current: true,
    });
    const saved = await call('save_template', { sender: 'acme-main', html: V1 });
    expect(saved.structuredContent).toMatchObject({ sender: 'acme-main', version: 1, html: V1, current: true });

    // The next /v1 send is wrapped in the saved version, no restart.
    const sent = await read(await api(freshApp.url, 'test-key').post('/v1/email/send/', { recipient: 'mcp@example.com', subject: 'MCP', body: '<p>Hi</p>' }));
    const id = (sent.body as { id: string }).id;
    const capture = (await read(await fetch(`${freshApp.url}/api/messages/${id}`))).body as any;
    expect([capture.html, capture.template_version]).toEqual(['<html><body><div class="mcp-v1"><p>Hi</p></div></body></html>', 1]);

    // The capture re-wrapped in a draft, cut as asked; its text comes wrapped as untrusted mail.
    const rewrapped = await call('rewrap_captures', { sender: 'acme-main', html: DRAFT, max_html_chars: 10 });
    expect(rewrapped.structuredContent).toEqual({
      sender: 'acme-main',
      captures: [
        {
          id,
          subject: 'MCP',
          created_at: capture.created_at,
          template_version: 1,
          unwrapped_body: 'kept',
          html: '<main clas',
          html_length: '<main class="draft"><p>Hi</p></main>'.length,
          html_truncated: true,
        },
      ],
    });
    expect(rewrapped.content[0]!.text).toContain('<untrusted-email-content>\n{"sender":"acme-main","captures":[{"id":');
    expect(rewrapped.content[0]!.text).not.toContain('<main');

    // A draft or a save without {{content}}: the sandbox's 400, as the tool's error; nothing saved.
    const missing = {
      isError: true,
      content: [{ type: 'text', text: 'Pigeonhole answered 400: {"detail":"html must contain {{content}} where the body goes."}' }],
    };
    expect(await call('save_template', { sender: 'acme-main', html: '<p>no slot</p>' })).toEqual(missing);
    expect(await call('rewrap_captures', { sender: 'acme-main', html: '<p>no slot</p>' })).toEqual(missing);

    const reverted = await call('revert_template', { sender: 'acme-main' });
    expect(reverted.structuredContent).toMatchObject({ version: 0, html: configured, current: true });
    const versions = (await call('template_versions', { sender: 'acme-main' })).structuredContent;
    expect(versions).toMatchObject({ sender: 'acme-main', current: 0 });
    expect(versions.versions.map((v: any) => [v.version, v.current])).toEqual([
      [0, true],
      [1, false],
    ]);
    expect(await call('get_template', { sender: 'nobody' })).toEqual({
      isError: true,
      content: [{ type: 'text', text: 'Pigeonhole answered 404: {"detail":"Unknown sender \\"nobody\\"."}' }],
    });
  });
});
