import { readFile } from 'node:fs/promises';
import { describe, expect } from 'vitest';
import { PigeonholeClient } from '../../../client/pigeonhole-client.ts';
import { test as it } from '../../support/fixtures.ts';
import { fixture } from './fixtures.ts';

/** The README's check example ("sends a receipt every client can show"), run for real. */
let pigeonhole: PigeonholeClient;

it.beforeEach(async ({ app }) => {
  pigeonhole = new PigeonholeClient({ baseUrl: app.url });
  await pigeonhole.reset();
});

describe("the typed client's checks, as the README shows them", () => {
  it("asserts a receipt is not clipped by Gmail and that our readers' clients support what it uses", async () => {
    const readme = await readFile(new URL('../../../README.md', import.meta.url), 'utf8');
    expect(readme).toContain('expect(check.size.gmail_clipped).toBe(false);           // not clipped by Gmail');
    const waiting = pigeonhole.waitForMessage({ recipient: 'ada@example.com', subject: 'Receipt', timeout: 5000 });
    await pigeonhole.sendEmail({
      apiKey: 'bulk-key',
      recipient: 'ada@example.com',
      subject: 'Receipt #10492',
      body: fixture('table-receipt.html'),
      plain_body: fixture('table-receipt.txt'),
    });
    const mail = await waiting;
    const check = await pigeonhole.check(mail.id);
    expect(check.size.gmail_clipped).toBe(false);
    const top = ['apple-mail.ios', 'gmail.desktop-webmail', 'gmail.android'];
    const extras = ['html-meta-color-scheme', 'css-at-media-prefers-color-scheme'];
    const lacking = check.html!.warnings.filter((w) => !extras.includes(w.feature) && top.some((c) => w.support[c] === 'no'));
    expect(lacking.map((w) => w.title)).toEqual([]);
    // The same assertion catches an email that relies on what Gmail drops.
    const flexy = await pigeonhole.sendEmail({
      apiKey: 'bulk-key',
      recipient: 'ada@example.com',
      subject: 'Animated',
      body: '<style>.a { animation: spin 1s; }</style><p class="a">x</p>',
    });
    const bad = await pigeonhole.check(flexy.id);
    expect(bad.html!.warnings.filter((w) => top.some((c) => w.support[c] === 'no')).map((w) => w.feature)).toContain('css-animation');
    expect(bad.accessibility.issues.map((i) => i.rule)).toContain('text-alternative');
  });

  it('filters by platform, checks links and drafts', async () => {
    const { id } = await pigeonhole.sendEmail({
      apiKey: 'bulk-key',
      recipient: 'bo@example.com',
      subject: 'Links',
      body: '<a href="mailto:x@y.example">Mail us</a>',
    });
    const mobile = await pigeonhole.check(id, { platforms: ['mobile'] });
    expect(mobile.html!.platforms).toEqual(['mobile']);
    expect(await pigeonhole.checkLinks(id, { timeoutMs: 1000 })).toEqual({ total: 0, broken: 0, skipped: 1, links: [] });
    const draft = await pigeonhole.checkDraft({ html: fixture('gmail-clipped-newsletter.html'), platforms: ['web'] });
    expect(draft.size.gmail_clipped).toBe(true);
    expect(draft.headers).toBeNull();
  });
});
