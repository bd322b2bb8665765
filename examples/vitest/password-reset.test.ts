import { expect, inject } from 'vitest';
import { resetPassword } from './app';
import { test } from './inbox';

const api = inject('pigeonholeUrl');

test('a password reset sends one email, with a link to the reset page', async ({ inbox }) => {
  await resetPassword(api, inbox.address('ada'), { registered: true });
  const { messages } = await inbox.expect(1);
  expect(new URL(messages[0]!.links[0]!.href).pathname).toBe('/reset');
});

test('a password reset for an unknown address sends nothing', async ({ inbox }) => {
  await resetPassword(api, inbox.address('ada'), { registered: false });
  await inbox.expectNone();
});
