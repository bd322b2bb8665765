/**
 * Stands for your application: it sends through the email API that Pigeonhole emulates. Yours
 * would read the API's base URL from its configuration; here the test passes it in.
 */
async function sendEmail(apiUrl: string, message: { recipient: string; subject: string; body: string }): Promise<void> {
  const response = await fetch(`${apiUrl}/v1/email/send/`, {
    method: 'POST',
    // bulk-key: the sample configuration's sender with no daily limit (test-key's is 100 a day, as the
    // service's would be, and a test suite sends more than that in a day).
    headers: { Authorization: 'Api-Key bulk-key', 'Content-Type': 'application/json' },
    body: JSON.stringify(message),
  });
  if (!response.ok) throw new Error(`the email API answered ${response.status}: ${await response.text()}`);
}

export function signUp(apiUrl: string, email: string): Promise<void> {
  const code = String(100000 + Math.floor(Math.random() * 900000));
  return sendEmail(apiUrl, { recipient: email, subject: 'Confirm your email', body: `<p>Your confirmation code is <b>${code}</b>.</p>` });
}

/** Sends a reset link to a registered user; for any other address it sends nothing (and says nothing). */
export async function resetPassword(apiUrl: string, email: string, { registered }: { registered: boolean }): Promise<void> {
  if (!registered) return;
  const token = Math.random().toString(36).slice(2);
  await sendEmail(apiUrl, {
    recipient: email,
    subject: 'Reset your password',
    body: `<p><a href="https://app.example/reset?token=${token}">Choose a new password</a></p>`,
  });
}
