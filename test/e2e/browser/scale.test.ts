import { describe, expect, it } from 'vitest';
import { useBrowser } from './browser.ts';

const b = useBrowser();
const COUNT = 3000;

describe('a large inbox in Chromium', () => {
  it('keeps only the visible rows in the page and asks the server only for the rows around them', async () => {
    // Straight through the ingestion path (anonymous SMTP-like captures): faster than HTTP.
    for (let i = 0; i < COUNT; i += 200) {
      await Promise.all(
        Array.from({ length: Math.min(200, COUNT - i) }, (_, j) =>
          b.server.sandbox.messages.ingest({
            source: 'smtp',
            caller: null,
            from: 'load@example.com',
            recipient: `r${i + j}@example.com`,
            subject: `Capture ${i + j}`,
            html: null,
            text: 'x',
            attachments: [],
            useAccountTemplate: false,
          }),
        ),
      );
    }
    const { page, errors } = await b.open({ height: 900 });
    const limits: number[] = [];
    page.on('request', (request) => {
      const url = new URL(request.url());
      if (url.pathname === '/api/messages' && !url.searchParams.has('read')) limits.push(Number(url.searchParams.get('limit')));
    });
    await page
      .getByTestId('list-meta')
      .getByText(`${COUNT.toLocaleString('en-US')} messages`)
      .waitFor();
    const rowsInDom = await page.locator('[role="listbox"][aria-label="Messages"] [role="option"]').count();
    expect(rowsInDom).toBeGreaterThan(5);
    expect(rowsInDom).toBeLessThan(40);

    // Jump to the middle: the rows there come from one request for that page.
    const target = 1500;
    const rowHeight = await page
      .locator('[role="listbox"][aria-label="Messages"] [role="option"]')
      .first()
      .evaluate((el) => (el as HTMLElement).offsetHeight);
    await page.getByRole('listbox', { name: 'Messages' }).evaluate((el, top) => (el.scrollTop = top), target * rowHeight);
    const expected = (await (await fetch(`${b.server.url}/api/messages?offset=${target}&limit=1`)).json()) as { messages: { id: string }[] };
    const middle = page.locator(`[role="listbox"][aria-label="Messages"] [role="option"][aria-posinset="${target + 1}"]`);
    await middle.waitFor();
    expect(await middle.getAttribute('data-id')).toBe(expected.messages[0]!.id);
    await expect.poll(() => limits.length).toBeGreaterThan(0);
    expect(Math.max(...limits)).toBeLessThanOrEqual(200);
    expect(await page.locator('[role="listbox"][aria-label="Messages"] [role="option"]').count()).toBeLessThan(40);
    expect(errors).toEqual([]);
  });
});
