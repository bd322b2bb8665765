import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect } from 'vitest';
import { PigeonholeClient } from '../../../client/pigeonhole-client.ts';
import { read } from '../../support/app.ts';
import { test as it } from '../../support/fixtures.ts';
import { capturedId, smtpClient } from '../../support/smtp.ts';

const run = promisify(execFile);
/** Django's password-reset mail body as its form renders it (see the fixture). */
const DJANGO_RESET_BODY = readFileSync(fileURLToPath(new URL('../../../fixtures/django-password-reset-body.txt', import.meta.url)), 'utf8');

/**
 * Django's password-reset mail sent the way the service's Django email backend sends it, in
 * Python's standard library: form-encoded, the first "to" address only, EMAIL_SUBJECT_PREFIX
 * before the subject, and the message's plain-text body in the API's HTML `body` field. Then,
 * as a test suite would, it reads the reset link back through /api/messages/wait.
 */
const DJANGO_BACKEND = `
import json, sys, urllib.parse, urllib.request
base, body = sys.argv[1], sys.stdin.read()
EMAIL_SUBJECT_PREFIX = "[Django] "
message_to = ["ada@example.com", "second@example.com"]
payload = {"recipient": message_to[0], "subject": f"{EMAIL_SUBJECT_PREFIX}Password reset on testserver", "body": body}
request = urllib.request.Request(base + "/v1/email/send/", data=urllib.parse.urlencode(payload).encode(), headers={"Authorization": "Api-Key test-key"})
with urllib.request.urlopen(request, timeout=10) as response:
    assert response.status == 200, response.status
    sent = json.loads(response.read())
    assert isinstance(sent["id"], str), sent

query = urllib.parse.urlencode({"recipient": "ada@example.com", "subject": "Password reset", "timeout": 10000})
with urllib.request.urlopen(base + "/api/messages/wait?" + query, timeout=15) as response:
    mail = json.loads(response.read())
print(json.dumps({"id": sent["id"], "mail": mail}))
`;

describe('extraction end to end', () => {
  it("reads the reset link of Django's password-reset mail posted by the Django backend (Python, form-encoded)", async ({ app }) => {
    if (
      !(await run('python3', ['--version']).then(
        () => true,
        () => false,
      ))
    )
      throw new Error('python3 is needed for this test: apt-get install python3');
    const child = run('python3', ['-c', DJANGO_BACKEND, app.url]);
    child.child.stdin!.end(DJANGO_RESET_BODY);
    const { id, mail } = JSON.parse((await child).stdout) as { id: string; mail: Record<string, unknown> };
    expect(mail).toMatchObject({
      id,
      subject: '[Django] Password reset on testserver',
      to: ['ada@example.com'],
      links: [
        {
          href: 'http://testserver/reset/MQ/c4x7yz-0a1b2c3d4e5f60718293a4b5c6d7e8f9/',
          text: 'http://testserver/reset/MQ/c4x7yz-0a1b2c3d4e5f60718293a4b5c6d7e8f9/',
        },
      ],
      codes: [],
      text_derived: true,
    });
    // test-key's account template wraps the body, so the text view reads it as a browser shows
    // it: one paragraph in the template's cell.
    expect(mail.text).toContain(
      "You're receiving this email because you requested a password reset for your user account at testserver. Please go to the following page and choose a new password: http://testserver/reset/MQ/c4x7yz-0a1b2c3d4e5f60718293a4b5c6d7e8f9/ Your username",
    );
    // Only the first recipient was sent.
    expect(((await read(await fetch(`${app.url}/api/messages?recipient=second@example.com`))).body as { total: number }).total).toBe(0);
  });

  it('finds links and codes of a text-only SMTP mail, and says its text is the real plain part', async ({ app }) => {
    const text = 'Hello,\n\nYour one-time code: 739 201\nSign in at https://app.example/signin?next=%2Fhome.\n\nOrder #448812 ships on 12 March 2026.\n';
    const id = capturedId(
      (await smtpClient(app.smtpPort).sendMail({ from: 'app@example.com', to: 'text-only@example.com', subject: 'Sign in', text })).response,
    );
    const mail = await new PigeonholeClient({ baseUrl: app.url }).waitForMessage({ recipient: 'text-only@example.com', timeout: 5000 });
    expect(mail).toMatchObject({
      id,
      html: null,
      text: text.trimEnd(),
      text_derived: false,
      codes: ['739201'],
      links: [{ href: 'https://app.example/signin?next=%2Fhome', text: 'https://app.example/signin?next=%2Fhome' }],
    });
  });

  it('joins quoted-printable soft line breaks inside a URL (a real SMTP send), in the text and the HTML part', async ({ app }) => {
    const url = `https://app.example/verify-email/confirm?token=${'a1b2c3d4'.repeat(12)}&user=ada%40example.com&redirect=%2Fwelcome`;
    const html = `<p>Confirm: <a href="${url.replace(/&/g, '&amp;')}">${url.replace(/&/g, '&amp;')}</a></p>`;
    const sent = await smtpClient(app.smtpPort).sendMail({
      from: 'app@example.com',
      to: 'qp@example.com',
      subject: 'Quoted-printable',
      text: `Confirm your address: ${url}\n`,
      html,
      textEncoding: 'quoted-printable',
    });
    const id = capturedId(sent.response);
    const raw = await (await fetch(`${app.url}/api/messages/${id}/raw`)).text();
    // The URL really was broken across lines on the wire.
    expect(raw).toMatch(/Content-Transfer-Encoding: quoted-printable/i);
    expect(raw).toMatch(/=\r\n/);
    expect(raw).not.toContain(url);
    const { links } = await new PigeonholeClient({ baseUrl: app.url }).extract(id);
    expect(links).toEqual([{ href: url, text: url }]);
  });
});
