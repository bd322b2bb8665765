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

test('a second sign-up, in its own namespace, gets its own link', async ({ page, app, inbox }) => {
  await page.goto(`${app.url}/signup`);
  await page.getByLabel('Email').fill(inbox.address('ada'));
  await page.getByRole('button', { name: 'Sign up' }).click();
  await expect(page.getByText('Check your inbox.')).toBeVisible();

  const mail = await inbox.wait({ subject: 'Confirm your email' });
  expect(mail.to).toEqual([inbox.address('ada')]);
  await page.goto(mail.links[0]!.href);
  await expect(page.getByRole('heading')).toHaveText(`Confirmed ${inbox.address('ada')}`);
});
