import { describe, expect, it } from 'vitest';
import { ARTIFACTS, useBrowser } from './browser.ts';

const harness = useBrowser();

/** A responsive email: a column that hides below 480 px, a dark style, and a script that must never run. */
const EMAIL = `<!doctype html><html><head><meta name="color-scheme" content="light dark"><style>
body { margin: 0; background: #ffffff; font: 16px sans-serif }
.wide { height: 300px; background: #4f46e5 }
@media (max-width: 480px) { .wide { display: none } }
@media (prefers-color-scheme: dark) { body { background: #000000 } }
</style></head><body><div style="height: 900px">Tall email</div><div class="wide">Desktop column</div>
<script>document.title = 'script ran'; parent.document.title = 'script ran'</script></body></html>`;

describe('the render URL in Chromium', () => {
  it('lays the email out at the width asked for, as tall as it is, with no script of its own running', async () => {
    const id = await harness.send({ recipient: 'render@example.com', subject: 'Render', body: EMAIL, use_account_template: false });
    const context = await harness.browser.newContext({ viewport: { width: 1280, height: 700 } });
    try {
      const page = await context.newPage();
      const errors: string[] = [];
      page.on('pageerror', (error) => errors.push(error.message));
      const measure = async (query: string) => {
        await page.goto(`${harness.server.url}/preview/${id}?${query}`);
        const frame = page.locator('iframe');
        await expect.poll(async () => (await frame.boundingBox())?.height ?? 0).toBeGreaterThan(800);
        return {
          box: await frame.boundingBox(),
          column: await page.frames()[1]!.evaluate(() => getComputedStyle(document.querySelector('.wide')!).display),
          background: await page.frames()[1]!.evaluate(() => getComputedStyle(document.body).backgroundColor),
          title: await page.title(),
          scrollHeight: await page.evaluate(() => document.documentElement.scrollHeight),
        };
      };
      const phone = await measure('width=phone');
      expect({ width: phone.box!.width, column: phone.column, title: phone.title }).toEqual({ width: 375, column: 'none', title: 'Render' });
      // The whole email: 900 px of text, its column hidden at this width.
      expect(phone.box!.height).toBeGreaterThanOrEqual(900);
      expect(phone.box!.height).toBeLessThan(1100);
      expect(phone.scrollHeight).toBe(Math.round(phone.box!.height));
      await page.screenshot({ path: `${ARTIFACTS}render-url-phone.png`, fullPage: true });
      const desktop = await measure('width=desktop&mode=dark');
      expect({ width: desktop.box!.width, column: desktop.column, background: desktop.background }).toEqual({
        width: 1280,
        column: 'block',
        background: 'rgb(0, 0, 0)',
      });
      expect(desktop.box!.height).toBeGreaterThanOrEqual(1200);
      await page.screenshot({ path: `${ARTIFACTS}render-url-desktop-dark.png`, fullPage: true });
      const light = await measure('width=900');
      expect({ width: light.box!.width, background: light.background }).toEqual({ width: 900, background: 'rgb(255, 255, 255)' });
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
