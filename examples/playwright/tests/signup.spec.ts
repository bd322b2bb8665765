import { expect, test } from './fixtures';

test('signing up sends a link that confirms the email', async ({ page, app, inbox }) => {
  await page.goto(`${app.url}/signup`);
  await page.getByLabel('Email').fill(inbox.address('ada'));
  await page.getByRole('button', { name: 'Sign up' }).click();
  await expect(page.getByText('Check your inbox.')).toBeVisible();

  const mail = await inbox.wait({ subject: 'Confirm your email' });
  await page.goto(mail.links[0]!.href);
  await expect(page.getByRole('heading')).toHaveText(`Confirmed ${inbox.address('ada')}`);
});

test('signing up twice sends two links, each confirming the address', async ({ page, app, inbox }) => {
  for (let i = 0; i < 2; i++) {
    await page.goto(`${app.url}/signup`);
    await page.getByLabel('Email').fill(inbox.address('ada'));
    await page.getByRole('button', { name: 'Sign up' }).click();
    await expect(page.getByText('Check your inbox.')).toBeVisible();
  }
  // The other test's mail to ada is in the same sandbox (this worker's), in another namespace.
  const { messages } = await inbox.expect(2, { subject: 'Confirm your email' });
  for (const mail of messages) {
    await page.goto(mail.links[0]!.href);
    await expect(page.getByRole('heading')).toHaveText(`Confirmed ${inbox.address('ada')}`);
  }
});
