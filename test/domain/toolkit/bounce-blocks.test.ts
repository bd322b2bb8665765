import { describe, expect } from 'vitest';
import { api, read, startApp } from '../../support/app.ts';
import { test } from '../../support/fixtures.ts';

/**
 * One rule for the block a bounce or a complaint leaves (docs/api-contract.md §6), whichever way the outcome comes
 * about: at capture (no delivery delay), when the delivery delay passes on the sandbox clock,
 * or forced through the sandbox API. It blocks the original recipient, also under Development
 * Mode, where the mail itself went to the development address.
 */

const BOUNCE = 'bounce@simulator.amazonses.com';

// `acme-main` sends as configured (no delay for `now`, the file's app; an hour for `later`, an
// app of the file's own); `bouncing-dev` is in Development Mode with a development address
// that bounces, so its sends bounce too.
test.override('appOptions', { config: withDevelopmentSender });
const it = test.extend('later', { scope: 'file' }, async ({}, { onCleanup }) => {
  const later = await startApp({ config: (sample: any) => withDevelopmentSender({ ...sample, delivery: { delay: '1h' } }) });
  onCleanup(() => later.destroy());
  return later;
});

function withDevelopmentSender(sample: any) {
  sample.teams[0].senders.push({
    id: 'bouncing-dev',
    name: 'Bouncing development inbox',
    email: 'dev@acme.example',
    apiKey: 'bouncing-dev-key',
    dailyLimit: null,
    developmentMode: true,
    developmentRecipient: BOUNCE,
  });
  return sample;
}

type App = { url: string };
const send = async (app: App, key: string, recipient: string) =>
  (await read(await api(app.url, key).post('/v1/email/send/', { recipient, subject: 's', body: 'b' }))).body as { id: string; error?: string };
const blocks = async (app: App) =>
  ((await read(await fetch(`${app.url}/api/blocks?team=acme`))).body as { blocks: { email: string; reason: string }[] }).blocks.filter(
    (b) => b.reason !== 'config',
  );
const post = (app: App, path: string, body: unknown) =>
  fetch(app.url + path, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });

describe('a bounce blocks the original recipient', () => {
  it('at capture, without Development Mode: the address sent to', async ({ app: now }) => {
    const sent = await send(now, 'bulk-key', 'bounce+capture@simulator.amazonses.com');
    expect(sent.error).toBeUndefined();
    expect(await blocks(now)).toContainEqual(expect.objectContaining({ email: 'bounce+capture@simulator.amazonses.com', reason: 'bounce' }));
    expect((await send(now, 'bulk-key', 'bounce+capture@simulator.amazonses.com')).error).toBe('Recipient is blocked');
  });

  it('at capture, under Development Mode: the address the sender asked for, not the development address', async ({ app: now }) => {
    await send(now, 'bouncing-dev-key', 'asked-at-capture@example.com');
    const emails = (await blocks(now)).map((b) => b.email);
    expect(emails).toContain('asked-at-capture@example.com');
    expect(emails).not.toContain(BOUNCE);
    expect((await send(now, 'bulk-key', 'asked-at-capture@example.com')).error).toBe('Recipient is blocked');
  });

  it('when the delivery delay passes, without Development Mode', async ({ later }) => {
    await send(later, 'bulk-key', 'bounce+delayed@simulator.amazonses.com');
    expect((await blocks(later)).map((b) => b.email)).not.toContain('bounce+delayed@simulator.amazonses.com');
    expect((await post(later, '/api/clock/advance', { duration: '2h' })).status).toBe(200);
    expect(await blocks(later)).toContainEqual(expect.objectContaining({ email: 'bounce+delayed@simulator.amazonses.com', reason: 'bounce' }));
  });

  it('when the delivery delay passes, under Development Mode: the address the sender asked for', async ({ later }) => {
    await send(later, 'bouncing-dev-key', 'asked-delayed@example.com');
    expect((await blocks(later)).map((b) => b.email)).not.toContain('asked-delayed@example.com');
    expect((await post(later, '/api/clock/advance', { duration: '2h' })).status).toBe(200);
    const emails = (await blocks(later)).map((b) => b.email);
    expect(emails).toContain('asked-delayed@example.com');
    expect(emails).not.toContain(BOUNCE);
  });

  it('when forced, without Development Mode', async ({ app: now }) => {
    const { id } = await send(now, 'bulk-key', 'forced@example.com');
    expect((await post(now, `/api/messages/${id}/status`, { status: 'complained' })).status).toBe(200);
    expect(await blocks(now)).toContainEqual(expect.objectContaining({ email: 'forced@example.com', reason: 'complaint' }));
  });

  it('when forced, under Development Mode: the address the sender asked for', async ({ app: now }) => {
    const { id } = await send(now, 'dev-key', 'forced-dev@example.com');
    expect((await post(now, `/api/messages/${id}/status`, { status: 'bounced' })).status).toBe(200);
    const emails = (await blocks(now)).map((b) => b.email);
    expect(emails).toContain('forced-dev@example.com');
    expect(emails).not.toContain('dev-inbox@example.com');
    expect((await send(now, 'dev-key', 'forced-dev@example.com')).error).toBe('Recipient is blocked');
  });
});
