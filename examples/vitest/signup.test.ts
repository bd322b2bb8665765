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

test('signing up twice sends two codes to the same address', async ({ inbox }) => {
  await signUp(api, inbox.address('ada'));
  await signUp(api, inbox.address('ada'));
  // The other file's tests use ada too, at the same time: their mail is in their own namespaces.
  await inbox.wait({ subject: 'Confirm' });
  const { messages } = await inbox.client.list({ namespace: inbox.namespace });
  expect(messages.map((m) => m.recipient)).toEqual([inbox.address('ada'), inbox.address('ada')]);
});
