import { describe, expect, it } from 'vitest';
import { row, useBrowser } from './browser.ts';

const b = useBrowser();

describe('the namespace filter in Chromium', () => {
  it('opens on the namespace of the URL, filters as one is typed, keeps it in the URL, and shows live mail of it only', async () => {
    const first = await b.send({ recipient: 'ada+brw-one@example.com', subject: 'In one', body: '<p>1</p>' });
    const second = await b.send({ recipient: 'ada+brw-two@example.com', subject: 'In two', body: '<p>2</p>' });
    const plain = await b.send({ recipient: 'ada@example.com', subject: 'In none', body: '<p>0</p>' });
    const { page, errors } = await b.open({ hash: '?namespace=brw-one' });
    const field = page.getByRole('textbox', { name: 'Namespace' });
    await expect(field.inputValue()).resolves.toBe('brw-one');
    await row(page, first).waitFor();
    await expect(row(page, first).innerText()).resolves.toContain('+brw-one');
    await expect(row(page, second).count()).resolves.toBe(0);
    await expect(row(page, plain).count()).resolves.toBe(0);

    await field.fill('BRW-two');
    await row(page, second).waitFor();
    await expect.poll(() => row(page, first).count()).toBe(0);
    expect(new URL(page.url()).searchParams.get('namespace')).toBe('brw-two');

    const live = await b.send({ recipient: 'bob+brw-two@example.com', subject: 'Live in two', body: '<p>2</p>' });
    const elsewhere = await b.send({ recipient: 'bob+brw-one@example.com', subject: 'Live in one', body: '<p>1</p>' });
    await row(page, live).waitFor({ timeout: 3000 });
    await expect(row(page, elsewhere).count()).resolves.toBe(0);

    // Something that cannot be a namespace is marked, and the list stays as it was.
    await field.fill('brw two');
    await expect(field.getAttribute('aria-invalid')).resolves.toBe('true');
    await expect(row(page, live).count()).resolves.toBe(1);

    await field.fill('');
    await row(page, plain).waitFor();
    await row(page, elsewhere).waitFor();
    expect(new URL(page.url()).searchParams.has('namespace')).toBe(false);
    expect(errors).toEqual([]);
  });

  it('with a namespace filter, "Clear" deletes that namespace only, and says so', async () => {
    const mine = await b.send({ recipient: 'ada+brw-clear@example.com', subject: 'Mine', body: '<p>1</p>' });
    const theirs = await b.send({ recipient: 'ada+brw-keep@example.com', subject: 'Theirs', body: '<p>2</p>' });
    const { page, errors, screenshot } = await b.open({ hash: '?namespace=brw-clear' });
    await row(page, mine).waitFor();
    await page.getByRole('button', { name: 'Clear brw-clear' }).click();
    const dialog = page.getByRole('dialog', { name: 'Delete namespace brw-clear?' });
    await expect(dialog.innerText()).resolves.toContain('Other namespaces stay.');
    await screenshot('clear-namespace-dialog');
    await dialog.getByRole('button', { name: 'Delete namespace' }).click();
    await expect.poll(() => row(page, mine).count()).toBe(0);
    const left = (await (await fetch(`${b.server.url}/api/messages?limit=500`)).json()) as { messages: { id: string }[] };
    const ids = left.messages.map((m) => m.id);
    expect(ids).not.toContain(mine);
    expect(ids).toContain(theirs);

    // A search shows some captures, but "Clear all" deletes every one: the dialog says so.
    await page.getByRole('textbox', { name: 'Namespace' }).fill('');
    await page.getByRole('searchbox', { name: 'Search messages' }).fill('Theirs');
    await page.getByText(/^\d+ match(es)?$/).waitFor();
    await page.getByRole('button', { name: 'Clear all' }).click();
    const every = page.getByRole('dialog', { name: 'Delete every message?' });
    await expect(every.innerText()).resolves.toContain('not only the ones this search shows');
    await every.getByRole('button', { name: 'Cancel' }).click();
    expect(errors).toEqual([]);
  });
});
