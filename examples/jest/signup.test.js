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

test('each test sees only its own mail, though every test signs ada up', async () => {
  await signUp(inbox.address('ada'));
  await inbox.wait({ subject: 'Confirm' });
  const { messages } = await inbox.client.list({ namespace: inbox.namespace });
  expect(messages.map((m) => m.recipient)).toEqual([inbox.address('ada')]);
});
