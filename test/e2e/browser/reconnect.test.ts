import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Browser } from 'playwright-core';
import { processTracker } from '../../support/process-helpers.ts';
import { launchChromium } from './browser.ts';

const tracker = processTracker();
let browser: Browser;
beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await tracker.cleanup();
});

async function send(base: string, subject: string): Promise<string> {
  const response = await fetch(`${base}/v1/email/send/`, {
    method: 'POST',
    headers: { Authorization: 'Api-Key bulk-key', 'Content-Type': 'application/json' },
    body: JSON.stringify({ recipient: 'outage@example.com', subject, body: '<p>x</p>' }),
  });
  return ((await response.json()) as { id: string }).id;
}

describe('the inbox across a server outage', () => {
  it('says it is offline, reconnects by itself and refetches what arrived meanwhile', async () => {
    const dataDir = await tracker.tempDir('pigeonhole-reconnect-');
    const first = await tracker.spawn({ dataDir });
    const page = await browser.newPage();
    page.setDefaultTimeout(15_000);
    await page.goto(`${first.url}/`);
    await page.getByRole('status').filter({ hasText: 'Live' }).waitFor();
    const before = await send(first.url, 'Before the outage');
    await page.locator(`[data-id="${before}"]`).waitFor();

    expect(await first.stop('SIGTERM')).toBe(0);
    await page.getByRole('status').filter({ hasText: 'Offline, retrying…' }).waitFor();

    // A capture the page gets no frame for: made by another process while the first is down.
    const other = await tracker.spawn({ dataDir });
    const during = await send(other.url, 'During the outage');
    expect(await other.stop('SIGTERM')).toBe(0);

    await tracker.spawn({ dataDir, args: ['--http-port', String(first.port)] });
    await page.getByRole('status').filter({ hasText: 'Live' }).waitFor();
    await page.locator(`[data-id="${during}"]`).waitFor();
    expect(await page.getByTestId('list-meta').innerText()).toContain('2 messages');
    await page.close();
  }, 60_000);
});
