import { mkdtempSync } from 'node:fs';
import { rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { Page } from 'playwright-core';
import { afterAll, describe, expect, it } from 'vitest';
import { useBrowser } from './browser.ts';

const folder = mkdtempSync(path.join(tmpdir(), 'pigeonhole-templates-'));
// Registered before the harness, so it runs after the harness has closed the browser and the app.
afterAll(() => rm(folder, { recursive: true, force: true }));
const b = useBrowser({ templates: folder });

/** Replaces the whole text of the CodeMirror editor named `name`, as a designer would: select all, type. */
async function replaceEditorText(page: Page, name: string, text: string): Promise<void> {
  const editor = page.getByRole('textbox', { name });
  await editor.click();
  await page.keyboard.press('ControlOrMeta+a');
  await page.keyboard.insertText(text);
}

/** The text in a srcdoc frame found by its title. */
async function frameText(page: Page, title: string): Promise<string> {
  const frame = await (await page.getByTitle(title).first().elementHandle())!.contentFrame();
  return frame!.locator('body').innerText();
}

async function capture(id: string): Promise<{ template_version: number | null; html: string }> {
  return (await (await fetch(`${b.server.url}/api/messages/${id}`)).json()) as { template_version: number | null; html: string };
}

describe('the Templates page in Chromium', () => {
  it("edits Acme's account template: the newest 20 captures re-wrapped before saving, saved as a version the next send uses, reverted; no restart", async () => {
    for (let i = 1; i <= 21; i++) await b.send({ recipient: 'designer@example.com', subject: `Issue ${i}`, body: `<p>Body of issue ${i}</p>` }, 'test-key');
    const { page, errors, screenshot } = await b.open({ hash: '#/preview?section=account&sender=acme-main', width: 1440, height: 900 });
    await page.getByTestId('template-in-use').getByText('Version 0 in use').waitFor();
    await expect.poll(() => page.getByTestId('rewrapped').count(), { timeout: 10_000 }).toBe(20);
    expect(await page.getByTestId('rewrap-count').innerText()).toBe('20 captures');

    await replaceEditorText(page, 'Account template', '<html><body><div>Acme v2 brand</div></body></html>');
    await page.getByRole('alert').getByText('The template has no').waitFor();
    expect(await page.getByRole('button', { name: 'Save as new version' }).isDisabled()).toBe(true);

    await replaceEditorText(page, 'Account template', '<html><body><div id="brand">Acme v2 brand</div>{{content}}</body></html>');
    // Before saving: every one of the 20 shows its own body in the draft.
    await expect.poll(() => frameText(page, 'Issue 21 in the draft'), { timeout: 5000 }).toContain('Acme v2 brand');
    expect(await frameText(page, 'Issue 21 in the draft')).toContain('Body of issue 21');
    expect(await frameText(page, 'Issue 2 in the draft')).toContain('Acme v2 brand');
    await screenshot('templates-account-draft');
    const before = await capture(await b.send({ recipient: 'designer@example.com', subject: 'Not yet', body: '<p>x</p>' }, 'test-key'));
    expect(before.template_version).toBe(0);

    await page.getByRole('button', { name: 'Save as new version' }).click();
    await page.getByTestId('template-in-use').getByText('Version 1 in use').waitFor();
    await page.getByTestId('template-version-1').getByText('in use').waitFor();
    const saved = await capture(await b.send({ recipient: 'designer@example.com', subject: 'After save', body: '<p>Saved body</p>' }, 'test-key'));
    expect(saved.template_version).toBe(1);
    expect(saved.html).toContain('Acme v2 brand');

    await page.getByRole('button', { name: 'Revert to configured' }).click();
    await page.getByTestId('template-in-use').getByText('Version 0 in use').waitFor();
    const reverted = await capture(await b.send({ recipient: 'designer@example.com', subject: 'After revert', body: '<p>x</p>' }, 'test-key'));
    expect(reverted.template_version).toBe(0);
    expect(reverted.html).not.toContain('Acme v2 brand');
    // Version 1 can be put back from the list.
    await page.getByRole('button', { name: 'Use version 1' }).click();
    await page.getByTestId('template-in-use').getByText('Version 1 in use').waitFor();
    await screenshot('templates-account-saved');
    expect(errors).toEqual([]);
  });

  it('"Open in Templates" makes a capture\'s body as sent the draft', async () => {
    const id = await b.send({ recipient: 'open@example.com', subject: 'Open me', body: '<h1 id="own">Body as sent</h1>' }, 'test-key');
    const { page, errors } = await b.open({ hash: `#/m/${id}` });
    await page.getByRole('link', { name: 'Open in Templates' }).click();
    await page.getByTestId('opened-capture').getByText('Open me').waitFor();
    const editor = page.getByRole('textbox', { name: 'HTML body' });
    await expect.poll(() => editor.innerText()).toBe('<h1 id="own">Body as sent</h1>');
    await expect.poll(() => frameText(page, 'Preview, phone')).toContain('Body as sent');
    expect(errors).toEqual([]);
  });

  it('a --templates file re-renders on save without losing the scroll position, with sample data validated inline', async () => {
    const rows = Array.from({ length: 60 }, (_, i) => `<p>Row ${i + 1}</p>`).join('\n');
    const file = path.join(folder, 'welcome.html');
    await writeFile(file, `<h1>Welcome, {{name}}!</h1>\n<p id="line">First save</p>\n${rows}`);
    const { page, errors, screenshot } = await b.open({ hash: '#/preview?section=files&file=welcome.html', width: 1440, height: 900 });
    const title = 'Template file welcome.html';
    await expect.poll(() => frameText(page, title)).toContain('Welcome, {{name}}!');

    await replaceEditorText(page, 'Sample data for welcome.html', '{"name": "Ada"');
    await page.getByTestId('sample-status').getByText('Not JSON').waitFor();
    await replaceEditorText(page, 'Sample data for welcome.html', '["Ada"]');
    await page.getByTestId('sample-status').getByText('must be a JSON object').waitFor();
    await replaceEditorText(page, 'Sample data for welcome.html', '{"name": "Ada"}');
    await expect.poll(() => frameText(page, title), { timeout: 5000 }).toContain('Welcome, Ada!');

    const stage = page.getByTestId('file-stage');
    await expect.poll(() => stage.evaluate((e) => e.scrollHeight - e.clientHeight)).toBeGreaterThan(400);
    await stage.evaluate((e) => {
      e.scrollTop = 400;
    });
    await writeFile(file, `<h1>Welcome, {{name}}!</h1>\n<p id="line">Second save</p>\n${rows}`);
    await expect.poll(() => frameText(page, title), { timeout: 5000 }).toContain('Second save');
    expect(await stage.evaluate((e) => e.scrollTop)).toBe(400);
    await screenshot('templates-files');
    expect(errors).toEqual([]);
  });
});
