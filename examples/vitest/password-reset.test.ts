import { expect, inject } from 'vitest';
import { resetPassword, signUp } from './app';
import { test } from './inbox';

const api = inject('pigeonholeUrl');

test('a password reset email links to the reset page', async ({ inbox }) => {
  await resetPassword(api, inbox.address('ada'));
  const mail = await inbox.wait({ subject: 'Reset your password' });
  expect(new URL(mail.links[0]!.href).pathname).toBe('/reset');
});

test("one test's mail never shows in another's inbox", async ({ inbox }) => {
  await signUp(api, inbox.address('ada'));
  await inbox.wait({ subject: 'Confirm' });
  const { messages } = await inbox.client.list({ namespace: inbox.namespace });
  expect(messages.map((m) => m.subject)).toEqual(['Confirm your email']);
});
