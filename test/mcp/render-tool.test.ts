import { describe, expect } from 'vitest';
import { PigeonholeClient } from '../../client/pigeonhole-client.ts';
import { renderTool } from '../../server/mcp/render-tool.ts';
import { read } from '../support/app.ts';
import { test as it } from '../support/fixtures.ts';
import { viewFixture } from '../support/view-fixtures.ts';

describe('the render_message tool (for the MCP server)', () => {
  it('answers the view without its HTML unless asked, then cut to max_html_chars', async ({ app, v1 }) => {
    const sent = await read(
      await v1.post('/v1/email/send/', { recipient: 'tool@example.com', subject: 'Tool', body: viewFixture('svg-form.html'), use_account_template: false }),
    );
    const id = (sent.body as { id: string }).id;
    const client = new PigeonholeClient({ baseUrl: app.url });
    const short = await renderTool.run(client, { id, client: 'outlook-windows' });
    expect('html' in short).toBe(false);
    expect(short).toMatchObject({ client: 'outlook-windows', fidelity: 'low', approximation: true });
    expect(short.removed.map((r) => r.feature)).toEqual(['html-svg', 'html-form', 'html-input-text', 'html-input-radio', 'html-select', 'html-button-submit']);
    const cut = await renderTool.run(client, { id, client: 'outlook-windows', include_html: true, max_html_chars: 20 });
    expect([cut.html, cut.html_truncated]).toEqual(['<!DOCTYPE html>\n<htm', true]);
    // The input shape refuses an unknown client before any call.
    expect(renderTool.input.client.safeParse('lotus-notes').success).toBe(false);
  });
});
