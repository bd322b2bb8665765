import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startApp, type TestServer } from '../../support/app.ts';
import { ARTIFACTS, launchChromium } from './browser.ts';

/**
 * An MCP Apps host, played in Chromium: it reads the `ui://` view through MCP, renders it in a
 * sandboxed frame on an origin of its own with the spec's default policy (no ui.csp declared),
 * answers `ui/initialize` with a host context, and hands the view a real wait_for_message
 * result (`ui/notifications/tool-result`). Every request the page makes is recorded: only the
 * host page and the view's own document may be fetched.
 */

/** The policy a host MUST use when the resource declares no `ui.csp` (MCP Apps 2026-01-26, Host Behavior). */
const DEFAULT_CSP =
  "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; media-src 'self' data:; connect-src 'none'";
const HOST = 'https://host.test';
const SANDBOX = 'https://sandbox.test';
const PIXEL = 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkaPhfDwAEfgH/1QJkmwAAAABJRU5ErkJggg==';

const RESET_HTML = `<!DOCTYPE html><html><head><meta charset="utf-8">
<link rel="preconnect" href="https://tracker.example"><link rel="stylesheet" href="https://tracker.example/style.css">
<style>@media (prefers-color-scheme: dark) { .card { background: #222 !important; color: #eee !important; } }</style></head>
<body style="margin:0;background:#f3f4f6;font-family:Arial,sans-serif">
<div class="card" style="max-width:560px;margin:24px auto;background:#fff;padding:24px;border-radius:8px;color:#111">
<img src="${PIXEL}" width="48" height="48" alt="Acme">
<h1 style="font-size:22px">Reset your password</h1>
<p>Someone asked to reset the password of ada@example.com. Your code is <b>482913</b>.</p>
<p><a href="https://app.example/reset?token=9f2c41" style="background:#4f46e5;color:#fff;padding:10px 16px;border-radius:6px;text-decoration:none">Choose a new password</a></p>
<img src="https://tracker.example/open.gif?u=ada" width="1" height="1" alt="">
<iframe src="https://tracker.example/frame"></iframe>
</div></body></html>`;

/** The host page: one sandboxed frame for the view, and the host side of the view's JSON-RPC. */
const HOST_PAGE = `<!DOCTYPE html><html><head><meta charset="utf-8"><style>
body { margin: 0; padding: 16px; font-family: sans-serif; }
body.dark { background: #141414; color: #eee; }
iframe { width: 100%; border: 1px solid #8884; border-radius: 8px; height: 40px; }
</style></head><body><p>Agent: the password reset email arrived.</p>
<iframe id="view" sandbox="allow-scripts allow-same-origin" src="${SANDBOX}/view.html"></iframe>
<script>
window.host = { sizes: [], links: [], initialized: false };
const frame = document.getElementById('view');
const post = (message) => frame.contentWindow.postMessage({ jsonrpc: '2.0', ...message }, '${SANDBOX}');
window.addEventListener('message', (event) => {
  if (event.source !== frame.contentWindow) return;
  const message = event.data;
  if (message.method === 'ui/initialize') {
    post({ id: message.id, result: {
      protocolVersion: message.params.protocolVersion,
      hostInfo: { name: 'pigeonhole-test-host', version: '1.0.0' },
      hostCapabilities: { openLinks: {} },
      hostContext: { theme: window.hostTheme, displayMode: 'inline', containerDimensions: { maxWidth: frame.clientWidth }, platform: 'web' },
    } });
  } else if (message.method === 'ui/notifications/initialized') {
    window.host.initialized = true;
    post({ method: 'ui/notifications/tool-input', params: { arguments: window.toolArguments } });
    post({ method: 'ui/notifications/tool-result', params: window.toolResult });
  } else if (message.method === 'ui/notifications/size-changed') {
    window.host.sizes.push(message.params);
    if (message.params.height) frame.style.height = message.params.height + 'px';
  } else if (message.method === 'ui/open-link') {
    window.host.links.push(message.params.url);
    post({ id: message.id, result: {} });
  } else if (message.id !== undefined && message.method) {
    post({ id: message.id, result: {} });
  }
});
</script></body></html>`;

describe('the email view in an MCP Apps host (Chromium)', () => {
  let server: TestServer;
  let browser: Browser;
  let mcp: Client;
  let view: { uri: string; html: string; mimeType: string };
  let toolResult: Record<string, unknown>;
  let captureId: string;
  const args = { recipient: 'ada@example.com', subject: 'Reset your password', timeout_ms: 30_000 };

  beforeAll(async () => {
    server = await startApp();
    browser = await launchChromium();
    // A 2026-07-28 client that declares MCP Apps, as a host does.
    mcp = new Client(
      { name: 'pigeonhole-test-host', version: '1.0.0' },
      {
        versionNegotiation: { mode: { pin: '2026-07-28' } },
        capabilities: { extensions: { 'io.modelcontextprotocol/ui': { mimeTypes: ['text/html;profile=mcp-app'] } } },
      },
    );
    await mcp.connect(new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`)));
    const { tools } = await mcp.listTools();
    const uri = (tools.find((t) => t.name === 'wait_for_message')!._meta as { ui: { resourceUri: string } }).ui.resourceUri;
    const read = await mcp.readResource({ uri });
    view = { uri, ...(read.contents[0] as { html?: string; text: string; mimeType: string }), html: (read.contents[0] as { text: string }).text };
    const waiting = mcp.callTool({ name: 'wait_for_message', arguments: args });
    const sent = await fetch(`${server.url}/v1/email/send/`, {
      method: 'POST',
      headers: { Authorization: 'Api-Key bulk-key', 'Content-Type': 'application/json' },
      body: JSON.stringify({ recipient: 'ada@example.com', subject: 'Reset your password', body: RESET_HTML, use_account_template: false }),
    });
    captureId = ((await sent.json()) as { id: string }).id;
    toolResult = (await waiting) as Record<string, unknown>;
  });
  afterAll(async () => {
    await mcp?.close();
    await browser?.close();
    await server?.destroy();
  });

  it('is one self-contained file under a ui:// URI that carries its content hash', async () => {
    expect(view.uri).toMatch(/^ui:\/\/pigeonhole\/email-[0-9a-f]{16}\.html$/);
    expect(view.mimeType).toBe('text/html;profile=mcp-app');
    const { createHash } = await import('node:crypto');
    expect(view.uri).toContain(createHash('sha256').update(view.html).digest('hex').slice(0, 16));
    // Nothing to load: no src or href to another file.
    expect(view.html).not.toMatch(/<script[^>]+src=|<link[^>]+href=/i);
  });

  /** Opens the host page at a width and theme, plays the view's start, and records every request. */
  async function host(width: number, theme: 'light' | 'dark'): Promise<{ page: Page; requests: string[] }> {
    // Tall enough for the whole view: headless Chromium paints frames outside the viewport late.
    const context = await browser.newContext({ viewport: { width, height: 1600 }, colorScheme: theme });
    const requests: string[] = [];
    await context.route('**/*', async (route) => {
      const url = route.request().url();
      requests.push(url);
      if (url === `${HOST}/`) return route.fulfill({ contentType: 'text/html', body: HOST_PAGE });
      if (url === `${SANDBOX}/view.html`)
        return route.fulfill({ contentType: 'text/html', headers: { 'Content-Security-Policy': DEFAULT_CSP }, body: view.html });
      return route.abort();
    });
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(error.message));
    await page.addInitScript(
      ([result, input, dark]) => {
        Object.assign(window, { toolResult: result, toolArguments: input, hostTheme: dark ? 'dark' : 'light' });
        if (dark) document.addEventListener('DOMContentLoaded', () => document.body.classList.add('dark'));
      },
      [toolResult, args, theme === 'dark'] as const,
    );
    await page.goto(`${HOST}/`);
    await expect.poll(() => page.evaluate(() => (window as unknown as { host: { initialized: boolean } }).host.initialized)).toBe(true);
    await page.frameLocator('#view').getByRole('heading', { name: 'Reset your password' }).waitFor();
    expect(errors).toEqual([]);
    return { page, requests };
  }

  it('renders the reset email with its link and code, light and dark, at narrow and wide sizes, and nothing leaves the frame', async () => {
    for (const [width, theme] of [
      [390, 'light'],
      [1000, 'light'],
      [390, 'dark'],
      [1000, 'dark'],
    ] as const) {
      const { page, requests } = await host(width, theme);
      const frame = page.frameLocator('#view');
      await expect.poll(() => frame.locator('.codes code').allTextContents()).toEqual(['482913']);
      await expect.poll(() => frame.getByRole('button', { name: 'Choose a new password' }).count()).toBe(1);
      expect(await frame.locator('dl').innerText()).toContain('ada@example.com');
      // The view follows the host's theme.
      expect(await frame.locator('html').getAttribute('data-theme')).toBe(theme);
      // The email itself, in a nested frame with an empty sandbox (no scripts, no same origin).
      const email = frame.locator('iframe[data-width]');
      expect(await email.getAttribute('sandbox')).toBe('');
      await expect.poll(() => frame.frameLocator('iframe[data-width]').getByRole('heading').innerText()).toBe('Reset your password');
      // The view reports its size, and the host gives it that height: all of it shows.
      const reported = () => page.evaluate(() => (window as unknown as { host: { sizes: { height?: number }[] } }).host.sizes.at(-1)?.height);
      await expect
        .poll(async () => (await reported()) === (await frame.locator('html').evaluate((html) => Math.ceil(html.getBoundingClientRect().height))))
        .toBe(true);
      expect(await reported()).toBeGreaterThan(500);
      await page.screenshot({ path: `${ARTIFACTS}mcp-app-${width}-${theme}.png`, fullPage: true });
      // Only the host page and the view's own document were fetched: not the tracker, not the sandbox.
      expect(requests).toEqual([`${HOST}/`, `${SANDBOX}/view.html`]);
      await page.context().close();
    }
  });

  it('shows the two dark modes and the three widths, follows a change of the host theme, and opens the capture in the inbox through the host', async () => {
    const { page, requests } = await host(1000, 'light');
    const frame = page.frameLocator('#view');
    await frame.getByRole('button', { name: 'Dark: inverted' }).click();
    expect(await frame.locator('iframe[data-width]').getAttribute('data-mode')).toBe('invert');
    await frame.getByRole('button', { name: 'Dark: own styles' }).click();
    // The email's own dark rule applies: its card goes dark.
    await expect
      .poll(() =>
        frame
          .frameLocator('iframe[data-width]')
          .locator('.card')
          .evaluate((card) => getComputedStyle(card).backgroundColor),
      )
      .toBe('rgb(34, 34, 34)');
    await page.screenshot({ path: `${ARTIFACTS}mcp-app-1000-own-dark.png`, fullPage: true });
    for (const [name, px] of [
      ['Tablet', '768px'],
      ['Desktop', '1024px'],
      ['Phone', '375px'],
    ] as const) {
      await frame.getByRole('button', { name }).click();
      expect(await frame.locator('iframe[data-width]').evaluate((f) => (f as HTMLElement).style.width)).toBe(px);
    }
    // The host switches to dark: the view follows at once.
    await page.evaluate(() =>
      (document.getElementById('view') as HTMLIFrameElement).contentWindow!.postMessage(
        { jsonrpc: '2.0', method: 'ui/notifications/host-context-changed', params: { theme: 'dark' } },
        'https://sandbox.test',
      ),
    );
    await expect.poll(() => frame.locator('html').getAttribute('data-theme')).toBe('dark');
    await frame.getByRole('button', { name: 'Open in the inbox' }).click();
    await frame.getByRole('button', { name: 'Choose a new password' }).click();
    await expect
      .poll(() => page.evaluate(() => (window as unknown as { host: { links: string[] } }).host.links))
      .toEqual([`${server.url}/#/m/${captureId}`, 'https://app.example/reset?token=9f2c41']);
    expect(requests).toEqual([`${HOST}/`, `${SANDBOX}/view.html`]);
    await page.context().close();
  });
});
