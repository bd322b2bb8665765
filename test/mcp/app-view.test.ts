import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { describe, expect } from 'vitest';
import { test as it } from '../support/fixtures.ts';
import { modern } from './clients.ts';

const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkaPhfDwAEfgH/1QJkmwAAAABJRU5ErkJggg==', 'base64');

describe("the email view's data in a tool result (MCP Apps)", () => {
  it('carries the capture for a client that declares MCP Apps: inline images as data:, links, codes, check summary, inbox link', async ({ app, smtp }) => {
    const host = await modern(new StreamableHTTPClientTransport(new URL(`${app.url}/mcp`)), { 'io.modelcontextprotocol/ui': {} });
    const plain = await modern(new StreamableHTTPClientTransport(new URL(`${app.url}/mcp`)));
    try {
      const id = await smtp.send({
        from: 'shop@acme.example',
        to: 'view+v1@example.com',
        subject: 'Your receipt',
        html: '<p><img src="cid:logo@acme" alt="Acme"> Receipt 7731. <a href="https://shop.example/orders/7731">See your order</a></p>',
        attachments: [{ filename: 'logo.png', content: PNG, contentType: 'image/png', cid: 'logo@acme' }],
      });
      const result = (await host.callTool({ name: 'get_message', arguments: { id } })) as { _meta: Record<string, any>; content: unknown };
      const payload = result._meta['pigeonhole/view'];
      expect(payload).toEqual({
        tool: 'get_message',
        messages: [
          expect.objectContaining({
            id,
            subject: 'Your receipt',
            from: 'shop@acme.example',
            to: ['view+v1@example.com'],
            links: [{ href: 'https://shop.example/orders/7731', text: 'See your order' }],
            inbox_url: `${app.url}/#/m/${id}`,
            check: expect.objectContaining({ html_bytes: expect.any(Number), gmail_clipped: false }),
          }),
        ],
      });
      // The image travels in the result: the view loads nothing.
      expect(payload.messages[0].html).toContain(`src="data:image/png;base64,${PNG.toString('base64')}"`);
      expect(payload.messages[0].html).not.toContain('cid:');
      // The same call from a client without MCP Apps: the same answer, without the view's data.
      const bare = (await plain.callTool({ name: 'get_message', arguments: { id } })) as { _meta: Record<string, unknown>; content: unknown };
      expect(bare.content).toEqual(result.content);
      expect(bare._meta).not.toHaveProperty('pigeonhole/view');
    } finally {
      await host.close();
      await plain.close();
    }
  });
});
