import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect, test } from '@playwright/test';

/** The templates under test: every .html file of emails/ (or of EMAILS_DIR). */
const EMAILS = process.env.EMAILS_DIR ?? fileURLToPath(new URL('../emails/', import.meta.url));
/** The API key of the sender whose account template wraps them (Pigeonhole's sample Acme sender). */
const KEY = process.env.PIGEONHOLE_KEY ?? 'test-key';
const WIDTHS = { phone: 375, tablet: 768, desktop: 1280 } as const;
const MODES = ['light', 'dark'] as const;

for (const file of readdirSync(EMAILS).filter((name) => name.endsWith('.html'))) {
  const name = file.replace(/\.html$/, '');
  for (const [width, px] of Object.entries(WIDTHS)) {
    for (const mode of MODES) {
      test(`${name} at ${width} width, ${mode}`, async ({ page, request }) => {
        // Send the template as it is now: the capture is what an application's send would be.
        const sent = await request.post('/v1/email/send/', {
          headers: { Authorization: `Api-Key ${KEY}` },
          data: { recipient: 'visual@example.com', subject: `Visual test: ${name}`, body: readFileSync(path.join(EMAILS, file), 'utf8') },
        });
        expect(sent.status()).toBe(200);
        const { id } = (await sent.json()) as { id: string };
        await page.setViewportSize({ width: px, height: 800 });
        await page.goto(`/preview/${id}?width=${width}&mode=${mode}`);
        await expect(page).toHaveScreenshot(`${name}-${width}-${mode}.png`, { fullPage: true });
      });
    }
  }
}
