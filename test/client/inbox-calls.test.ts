import { describe, expect } from 'vitest';
import { type LinkEvent, PigeonholeClient, PigeonholeError } from '../../client/pigeonhole-client.ts';
import { test as it } from '../support/fixtures.ts';
import { startLinkSite } from '../support/link-servers.ts';

/** The calls the inbox UI makes through the typed client: reading, marking, deleting, previews, the streamed link check, aborting. */
describe('the typed client, as the inbox uses it', () => {
  it('reads a capture as the preview gets it, marks it read, deletes one and then all', async ({ app }) => {
    const client = new PigeonholeClient({ baseUrl: app.url });
    const { id } = await client.sendEmail({
      apiKey: 'test-key',
      recipient: 'reader@example.com',
      subject: 'Read me',
      body: '<p>Hi <img src="https://example.com/a.png"></p>',
    });
    const { id: other } = await client.sendEmail({ apiKey: 'test-key', recipient: 'reader@example.com', subject: 'Another', body: '<p>b</p>' });
    expect(await client.html(id)).toContain('<p>Hi');
    expect(await client.html(id, { remote: true })).toContain('https://example.com/a.png');
    expect((await client.setRead(id, true)).read).toBe(true);
    expect((await client.list({ read: false })).messages.map((m) => m.id)).toEqual([other]);
    await client.remove(id);
    await expect(client.get(id)).rejects.toMatchObject({ status: 404, statusText: 'Not Found', body: { detail: expect.any(String) } });
    await client.clear();
    expect((await client.list()).total).toBe(0);
  });

  it("wraps a draft in a sender's template", async ({ app }) => {
    const client = new PigeonholeClient({ baseUrl: app.url });
    const senders = await client.senders();
    const wrapping = senders.find((s) => s.has_account_template)!;
    const plain = senders.find((s) => !s.has_account_template)!;
    const wrapped = await client.preview(wrapping.id, '<p>Draft</p>');
    expect(wrapped).toContain('<p>Draft</p>');
    expect(wrapped.length).toBeGreaterThan('<p>Draft</p>'.length);
    expect(await client.preview(plain.id, '<p>Draft</p>')).toBe('<p>Draft</p>');
    await expect(client.preview('nobody', '<p>x</p>')).rejects.toMatchObject({ status: 400, body: { detail: 'Unknown sender "nobody".' } });
  });

  it('streams the link check event by event and resolves with the same result as the plain call', async ({ app }) => {
    const site = await startLinkSite();
    try {
      const client = new PigeonholeClient({ baseUrl: app.url });
      const body = `<a href="${site.url}/ok">ok</a> <a href="${site.url}/missing">gone</a> <a href="mailto:x@example.com">mail</a>`;
      const { id } = await client.sendEmail({ apiKey: 'test-key', recipient: 'links@example.com', subject: 'Links', body });
      const events: LinkEvent[] = [];
      const streamed = await client.checkLinks(id, { onEvent: (event) => events.push(event) });
      expect(events.map((e) => e.type)).toEqual(['start', 'link', 'link', 'done']);
      expect(events[0]).toEqual({ type: 'start', total: 2, skipped: 1 });
      const plain = await client.checkLinks(id);
      const byUrl = (a: { url: string }, b: { url: string }) => a.url.localeCompare(b.url);
      const shape = (check: typeof plain) => ({ ...check, links: check.links.map(({ time_ms: _, ...link }) => link).sort(byUrl) });
      expect(shape(streamed)).toEqual(shape(plain));
      expect(streamed).toMatchObject({ total: 2, broken: 1, skipped: 1 });
    } finally {
      await site.close();
    }
  });

  it('gives up a call when its signal aborts', async ({ app }) => {
    const client = new PigeonholeClient({ baseUrl: app.url });
    const controller = new AbortController();
    controller.abort();
    for (const call of [
      client.list({ signal: controller.signal }),
      client.get('x', { signal: controller.signal }),
      client.raw('x', { signal: controller.signal }),
      client.senders({ signal: controller.signal }),
      client.recipients({ signal: controller.signal }),
      client.subscriptions({ signal: controller.signal }),
      client.checkDraft({ html: '<p>x</p>' }, { signal: controller.signal }),
    ]) {
      const error = await call.catch((e: unknown) => e);
      expect(error).not.toBeInstanceOf(PigeonholeError);
      expect(error).toMatchObject({ name: 'AbortError' });
    }
  });
});
