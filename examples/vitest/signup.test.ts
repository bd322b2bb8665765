import { expect, inject } from 'vitest';
import { signUp } from './app';
import { test } from './inbox';

const api = inject('pigeonholeUrl');

test('a new user gets a confirmation code', async ({ inbox }) => {
  await signUp(api, inbox.address('ada'));
  const mail = await inbox.wait({ subject: 'Confirm' });
  expect(mail.to).toEqual([inbox.address('ada')]);
  expect(mail.codes[0]).toMatch(/^\d{6}$/);
});

test('signing up twice sends exactly two codes', async ({ inbox }) => {
  await signUp(api, inbox.address('ada'));
  await signUp(api, inbox.address('ada'));
  // The other file's tests sign ada up too, at the same time: their mail is in their own namespaces.
  const { messages } = await inbox.expect(2, { subject: 'Confirm' });
  expect(new Set(messages.map((m) => m.codes[0])).size).toBe(2);
});
