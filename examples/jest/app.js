/**
 * Stands for your application: it sends through the email API that Pigeonhole emulates, at
 * the URL its configuration names (here PIGEONHOLE_URL, set by pigeonhole.setup.js).
 */
export async function signUp(email) {
  const code = String(100000 + Math.floor(Math.random() * 900000));
  const response = await fetch(`${process.env.PIGEONHOLE_URL}/v1/email/send/`, {
    method: 'POST',
    // bulk-key: the sample configuration's sender with no daily limit (test-key's is 100 a day, as the
    // service's would be, and a test suite sends more than that in a day).
    headers: { Authorization: 'Api-Key bulk-key', 'Content-Type': 'application/json' },
    body: JSON.stringify({ recipient: email, subject: 'Confirm your email', body: `<p>Your confirmation code is <b>${code}</b>.</p>` }),
  });
  if (!response.ok) throw new Error(`the email API answered ${response.status}: ${await response.text()}`);
}
