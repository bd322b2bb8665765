import { signUp } from './app.js';
import { newInbox } from './inbox.js';

let inbox;
beforeEach(() => {
  inbox = newInbox();
});
afterEach(() => inbox.clear());

test('a new user gets a confirmation code', async () => {
  await signUp(inbox.address('ada'));
  const mail = await inbox.wait({ subject: 'Confirm' });
  expect(mail.to).toEqual([inbox.address('ada')]);
  expect(mail.codes[0]).toMatch(/^\d{6}$/);
});

test('signing up sends exactly one email, though every test signs ada up', async () => {
  await signUp(inbox.address('ada'));
  const { messages } = await inbox.expect(1);
  expect(messages[0].subject).toBe('Confirm your email');
});
