import type { AddressInfo } from 'node:net';
import { SMTPServer } from 'smtp-server';
import { afterAll, describe, expect, it } from 'vitest';
import { useBrowser } from './browser.ts';

/** A second SMTP server, started by the test: the relay, recording each envelope it accepts. */
const received: { to: string[]; raw: string }[] = [];
const relay = new SMTPServer({
  authOptional: true,
  disabledCommands: ['STARTTLS'],
  logger: false,
  onData(stream, session, callback) {
    const chunks: Buffer[] = [];
    stream.on('data', (chunk: Buffer) => chunks.push(chunk));
    stream.on('end', () => {
      received.push({ to: session.envelope.rcptTo.map((r) => r.address), raw: Buffer.concat(chunks).toString('utf8') });
      callback(null, 'OK: queued as relay-1');
    });
  },
});
// Registered before the harness, so it closes after the app that relays to it.
afterAll(() => new Promise<void>((resolve) => relay.close(() => resolve())));
const b = useBrowser(async () => {
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
  const port = (relay.server.address() as AddressInfo).port;
  return { relay: { target: { host: '127.0.0.1', port, secure: false, auth: null }, allow: ['*@example.com'] } };
});

describe('"Send to…" in Chromium', () => {
  it('relays the capture to an allowed address and says why it refuses another', async () => {
    const id = await b.send({ recipient: 'release@example.com', subject: 'Release me', body: '<p>For a real inbox</p>' }, 'test-key');
    const { page, errors, screenshot } = await b.open({ hash: `#/m/${id}` });
    await page.getByRole('button', { name: 'Send to…' }).click();
    const dialog = page.getByRole('dialog', { name: 'Send to a real inbox' });
    await dialog.getByRole('textbox', { name: 'To' }).fill('someone@elsewhere.org');
    await dialog.getByRole('button', { name: 'Send', exact: true }).click();
    await dialog.getByRole('alert').getByText('Not sent:').waitFor();
    expect(await dialog.getByRole('alert').innerText()).toContain('someone@elsewhere.org');
    expect(received).toEqual([]);

    await dialog.getByRole('textbox', { name: 'To' }).fill('me@example.com');
    await dialog.getByRole('button', { name: 'Send', exact: true }).click();
    await dialog.getByRole('status').getByText('Sent through').waitFor();
    expect(await dialog.getByRole('status').innerText()).toContain('me@example.com');
    expect(received.map((r) => r.to)).toEqual([['me@example.com']]);
    expect(received[0]!.raw).toContain('Subject: Release me');
    await screenshot('release-dialog');
    await dialog.getByRole('button', { name: 'Close' }).click();
    await expect.poll(() => dialog.isVisible()).toBe(false);
    expect(errors).toEqual([]);
  });
});
