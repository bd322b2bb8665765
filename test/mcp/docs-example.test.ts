import { randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { describe, expect } from 'vitest';
import { test } from '../support/fixtures.ts';

/**
 * The application of docs/mcp.md's worked example: POST /signup sends a welcome mail with a
 * confirmation link through the sandbox's /v1 (form-encoded, key test-key); GET /confirm
 * confirms the address of a known token.
 */
function startApplication(pigeonhole: { url: string }): Promise<{ url: string; server: Server; confirmed: Set<string> }> {
  const tokens = new Map<string, string>();
  const confirmed = new Set<string>();
  let url = '';
  const server = createServer(async (req, res) => {
    const at = new URL(req.url!, url);
    if (req.method === 'POST' && at.pathname === '/signup') {
      let body = '';
      for await (const chunk of req) body += chunk;
      const email = new URLSearchParams(body).get('email')!;
      const token = randomBytes(6).toString('hex');
      tokens.set(token, email);
      const link = `${url}/confirm?token=${token}`;
      const sent = await fetch(`${pigeonhole.url}/v1/email/send/`, {
        method: 'POST',
        headers: { Authorization: 'Api-Key test-key' },
        body: new URLSearchParams({
          recipient: email,
          subject: 'Welcome to Acme',
          first_name: 'Ada',
          body: `<h1>Welcome, Ada!</h1><p><a href="${link}">Confirm your email</a></p>`,
        }),
      });
      res.writeHead(sent.status === 200 ? 201 : 502).end();
      return;
    }
    if (req.method === 'GET' && at.pathname === '/confirm' && tokens.has(at.searchParams.get('token') ?? '')) {
      const email = tokens.get(at.searchParams.get('token')!)!;
      confirmed.add(email);
      res.writeHead(200, { 'Content-Type': 'text/plain' }).end(`Your address ${email} is confirmed.`);
      return;
    }
    res.writeHead(404).end();
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      resolve({ url, server, confirmed });
    }),
  );
}

/**
 * `application`: the example application (startApplication) sending through the file's app;
 * `call(name, args)`: a tool call by an MCP client on the app's /mcp, its JSON result (a tool
 * error fails the test).
 */
const it = test
  .extend('application', { scope: 'file' }, async ({ app }, { onCleanup }) => {
    const application = await startApplication(app);
    onCleanup(() => new Promise<void>((resolve) => application.server.close(() => resolve())));
    return application;
  })
  .extend('call', { scope: 'file' }, async ({ app }, { onCleanup }) => {
    const agent = new Client({ name: 'agent', version: '1.0.0' });
    await agent.connect(new StreamableHTTPClientTransport(new URL(`${app.url}/mcp`)));
    onCleanup(() => agent.close());
    return async (name: string, args: Record<string, unknown>) => {
      const result = (await agent.callTool({ name, arguments: args })) as {
        content: { text: string }[];
        structuredContent: Record<string, any>;
        isError?: boolean;
      };
      expect(result.isError, result.content[0]!.text).toBeFalsy();
      return result.structuredContent;
    };
  });

describe('docs/mcp.md: sign up in the app, wait for the welcome mail, open its link', () => {
  it('runs as written', async ({ application, call }) => {
    await call('reset_sandbox', {});
    expect((await fetch(`${application.url}/signup`, { method: 'POST', body: new URLSearchParams({ email: 'ada@example.com' }) })).status).toBe(201);
    const mail = await call('wait_for_message', { recipient: 'ada@example.com', subject: 'Welcome', timeout_ms: 30000 });
    expect(mail).toMatchObject({ subject: 'Welcome to Acme', to: ['ada@example.com'], status: 'delivered', text_derived: true, codes: [] });
    expect(mail.links).toEqual([{ href: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/confirm\?token=[0-9a-f]{12}$/), text: 'Confirm your email' }]);
    expect(mail.text).toContain(`Welcome, Ada!\n\nConfirm your email (${mail.links[0].href})`);
    const opened = await fetch(mail.links[0].href);
    expect([opened.status, await opened.text()]).toEqual([200, 'Your address ada@example.com is confirmed.']);
    expect(application.confirmed.has('ada@example.com')).toBe(true);
  });
});
