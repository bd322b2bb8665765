import { expect } from 'vitest';
import { PigeonholeClient } from '../../client/pigeonhole-client.ts';
import { test as it } from '../support/fixtures.ts';

it('edits an account template through the typed client: save, the next send, versions, re-wrap, revert', async ({ freshApp }) => {
  const client = new PigeonholeClient({ baseUrl: freshApp.url });
  expect(await client.template('acme-bulk')).toEqual({ sender: 'acme-bulk', version: 0, html: null, saved_at: null, current: true });
  const saved = await client.saveTemplate('acme-bulk', '<main>{{content}}</main>');
  expect(saved).toMatchObject({ version: 1, current: true });
  const { id } = await client.sendEmail({ apiKey: 'bulk-key', recipient: 'c@example.com', subject: 'S', body: '<p>b</p>' });
  const capture = await client.get(id);
  expect([capture.html, capture.unwrapped_html, capture.template_version, capture.unwrapped_body]).toEqual(['<main><p>b</p></main>', '<p>b</p>', 1, 'kept']);
  expect(await client.preview('acme-bulk', '<p>d</p>', { template: '<s>{{content}}</s>' })).toBe('<s><p>d</p></s>');
  const rewrapped = await client.rewrap('acme-bulk', { html: '<s>{{content}}</s>' });
  expect(rewrapped.captures.map((c) => [c.id, c.html])).toEqual([[id, '<s><p>b</p></s>']]);
  expect((await client.templateVersions('acme-bulk')).versions.map((v) => [v.version, v.current])).toEqual([
    [0, false],
    [1, true],
  ]);
  expect(await client.revertTemplate('acme-bulk')).toMatchObject({ version: 0, html: null });
  expect(await client.revertTemplate('acme-bulk', 1)).toMatchObject({ version: 1, html: '<main>{{content}}</main>' });
  await expect(client.saveTemplate('acme-bulk', '<main></main>')).rejects.toMatchObject({
    status: 400,
    body: { detail: 'html must contain {{content}} where the body goes.' },
  });
});
