import { describe, expect } from 'vitest';
import { raw } from '../support/raw.ts';
import { test } from '../support/fixtures.ts';

/**
 * /mcp keeps the sandbox API's browser rules (issue 12): a page on another origin cannot call a
 * tool (reset_sandbox would wipe the inbox), while a client without an Origin is served.
 */

const initialize = JSON.stringify({
  jsonrpc: '2.0',
  id: 1,
  method: 'initialize',
  params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'origin-test', version: '1' } },
});
const mcpHeaders = { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' };
/** `total()`: how many captures the file's app holds. */
const it = test.extend(
  'total',
  { scope: 'file' },
  ({ app }) =>
    async () =>
      (await raw(`${app.url}/api/messages?limit=1`)).body.total as number,
);

describe('/mcp from a web page', () => {
  it("refuses a foreign Origin with the guard's 403 and changes nothing", async ({ app, total }) => {
    await raw(`${app.url}/v1/email/send/`, {
      method: 'POST',
      headers: { Authorization: 'Api-Key test-key', 'Content-Type': 'application/json' },
      body: JSON.stringify({ recipient: 'a@example.com', subject: 'Kept', body: 'x' }),
    });
    expect(await total()).toBe(1);
    const refused = await raw(`${app.url}/mcp`, { method: 'POST', headers: { ...mcpHeaders, Origin: 'https://evil.example' }, body: initialize });
    expect(refused.status).toBe(403);
    expect(refused.body).toEqual({
      detail:
        'Origin "https://evil.example" may not change anything here. To allow pages from it, start Pigeonhole with --allowed-origins https://evil.example (or PIGEONHOLE_ALLOWED_ORIGINS=https://evil.example).',
    });
    const call = JSON.stringify({ jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'reset_sandbox', arguments: {} } });
    expect((await raw(`${app.url}/mcp`, { method: 'POST', headers: { ...mcpHeaders, Origin: 'https://evil.example' }, body: call })).status).toBe(403);
    expect(await total()).toBe(1);
  });

  it('refuses a rebinding Host too', async ({ app }) => {
    const port = new URL(app.url).port;
    const refused = await raw(`${app.url}/mcp`, { method: 'POST', headers: { ...mcpHeaders, Host: `evil.example:${port}` }, body: initialize });
    expect(refused.status).toBe(403);
    expect(refused.body.detail).toMatch(/^Host "evil\.example:\d+" is not an allowed host/);
  });

  it("serves a client without an Origin (an agent's MCP client)", async ({ app }) => {
    const ok = await raw(`${app.url}/mcp`, { method: 'POST', headers: mcpHeaders, body: initialize });
    expect(ok.status).toBe(200);
    expect(ok.text).toContain('"serverInfo"');
  });
});
