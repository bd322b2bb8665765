import { execFile } from 'node:child_process';
import { X509Certificate } from 'node:crypto';
import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import nodemailer from 'nodemailer';
import { describe, expect } from 'vitest';
import { autoCertificate, certificateNames, type TlsCertificate } from '../../server/smtp/tls-certificate.ts';
import { startApp } from '../support/app.ts';
import { test } from '../support/fixtures.ts';
import { capturedId, rawSmtp, smtpClient, trySend } from '../support/smtp.ts';

const exec = promisify(execFile);
const mail = (subject: string) => ({ from: 'app@example.com', to: 'user@example.com', subject, text: 'Your code is 731904' });

/** nodemailer to 127.0.0.1 with the given TLS settings. */
const transport = (port: number, options: Record<string, unknown>) => nodemailer.createTransport({ host: '127.0.0.1', port, ...options });

const PY_PREAMBLE = `
import smtplib, ssl, sys
from email.message import EmailMessage
port, cafile = int(sys.argv[1]), sys.argv[2]
msg = EmailMessage()
msg["From"], msg["To"], msg["Subject"] = "app@example.com", "user@example.com", "From Python"
msg.set_content("Your code is 731904")
`;

/** An app with the certificate and these TLS settings, destroyed at `onCleanup`. */
async function tlsApp(cert: TlsCertificate, tls: { implicit: boolean; required: boolean }, onCleanup: (fn: () => Promise<void>) => void) {
  const app = await startApp({ smtp: { tls: { cert: cert.cert, key: cert.key, ...tls } } });
  onCleanup(() => app.destroy());
  return app;
}

/**
 * `tls`: the automatic certificate for 127.0.0.1 (`cert`) in a temporary directory (`dir`), made
 * once for the file. `starttlsApp`, `requiredApp`, `implicitApp`: an app with that certificate,
 * STARTTLS offered, STARTTLS required, implicit TLS. `python(script, port)`: runs Python's
 * smtplib (standard library only) against the port with the certificate file, printing the
 * server's reply to the message.
 */
const it = test
  .extend('tls', { scope: 'file' }, async ({}, { onCleanup }) => {
    const dir = await mkdtemp(path.join(tmpdir(), 'pigeonhole-tls-'));
    onCleanup(() => rm(dir, { recursive: true, force: true }));
    return { dir, cert: await autoCertificate(dir, certificateNames('127.0.0.1', [])) };
  })
  .extend('starttlsApp', { scope: 'file' }, ({ tls }, { onCleanup }) => tlsApp(tls.cert, { implicit: false, required: false }, onCleanup))
  .extend('requiredApp', { scope: 'file' }, ({ tls }, { onCleanup }) => tlsApp(tls.cert, { implicit: false, required: true }, onCleanup))
  .extend('implicitApp', { scope: 'file' }, ({ tls }, { onCleanup }) => tlsApp(tls.cert, { implicit: true, required: false }, onCleanup))
  .extend('python', { scope: 'file' }, ({ tls }) => async (script: string, port: number): Promise<string> => {
    const { stdout } = await exec('python3', ['-c', script, String(port), tls.cert.file]);
    return stdout.trim();
  });

describe('without a certificate (the default)', () => {
  it('offers no STARTTLS, so clients that upgrade whenever offered keep sending in plain text as before', async ({ app }) => {
    const smtp = await rawSmtp(app.smtpPort);
    expect(await smtp.command('EHLO test')).not.toContain('STARTTLS');
    expect(await smtp.command('STARTTLS')).toMatch(/^5\d\d /);
    await smtp.close();
    const sent = await transport(app.smtpPort, {}).sendMail(mail('opportunistic'));
    expect(sent.response).toMatch(/^250 2\.0\.0 Captured as \w+$/);
  });
});

describe('STARTTLS (--smtp-tls-cert)', () => {
  it('is offered, and nodemailer with requireTLS (skipping verification) sends through it', async ({ starttlsApp }) => {
    const smtp = await rawSmtp(starttlsApp.smtpPort);
    expect(await smtp.command('EHLO test')).toContain('250-STARTTLS');
    await smtp.close();
    const sent = await transport(starttlsApp.smtpPort, { secure: false, requireTLS: true, tls: { rejectUnauthorized: false } }).sendMail(
      mail('nodemailer STARTTLS'),
    );
    const capture = await starttlsApp.sandbox.messages.get(capturedId(sent.response));
    expect(capture?.subject).toBe('nodemailer STARTTLS');
  });

  it('verifies against the certificate file when a client is told to trust it (ca), by localhost or 127.0.0.1', async ({ starttlsApp, tls: { cert } }) => {
    // By name (servername) and by address (checked against the certificate's IP entries).
    for (const tls of [{ servername: 'localhost' }, {}]) {
      const sent = await transport(starttlsApp.smtpPort, { secure: false, requireTLS: true, tls: { ca: await readFile(cert.file, 'utf8'), ...tls } }).sendMail(
        mail('verified'),
      );
      expect(sent.response).toMatch(/^250 2\.0\.0 Captured as/);
    }
  });

  it("fails a client that verifies certificates and was not told to trust this one (nodemailer's default): why STARTTLS is off unless asked for", async ({
    starttlsApp,
  }) => {
    const result = await trySend(transport(starttlsApp.smtpPort, {}) as ReturnType<typeof smtpClient>, mail('default verify'));
    expect(result.ok).toBe(false);
    expect(result.response).toMatch(/self[- ]signed certificate/);
  });

  it("Python's smtplib.starttls() sends through it: with no context (smtplib then verifies nothing) and verified against the certificate file", async ({
    starttlsApp,
    python,
  }) => {
    const unverified = await python(
      `${PY_PREAMBLE}
with smtplib.SMTP("127.0.0.1", port) as s:
    s.starttls()
    s.send_message(msg)
    print(s.noop()[0])
`,
      starttlsApp.smtpPort,
    );
    expect(unverified).toBe('250');
    const verified = await python(
      `${PY_PREAMBLE}
with smtplib.SMTP("localhost", port) as s:
    s.starttls(context=ssl.create_default_context(cafile=cafile))
    s.send_message(msg)
    print(s.sock.version())
`,
      starttlsApp.smtpPort,
    );
    expect(verified).toMatch(/^TLSv1\.[23]$/);
    const captures = (await (await fetch(`${starttlsApp.url}/api/messages?q=python`)).json()) as { messages: { subject: string; source: string }[] };
    expect(captures.messages).toMatchObject([
      { subject: 'From Python', source: 'smtp' },
      { subject: 'From Python', source: 'smtp' },
    ]);
  });

  it('AUTH with an API key works over the TLS session as it does in plain text', async ({ starttlsApp }) => {
    const sent = await transport(starttlsApp.smtpPort, {
      secure: false,
      requireTLS: true,
      tls: { rejectUnauthorized: false },
      auth: { user: 'app', pass: 'test-key' },
    }).sendMail(mail('authenticated over TLS'));
    expect(await starttlsApp.sandbox.messages.get(capturedId(sent.response))).toMatchObject({ sender: 'acme-main', team: 'acme' });
  });
});

describe('--smtp-require-tls', () => {
  it('refuses MAIL FROM with 530 until STARTTLS, and AUTH (an API key in clear) too', async ({ requiredApp }) => {
    const smtp = await rawSmtp(requiredApp.smtpPort);
    expect(await smtp.command('EHLO test')).toContain('250-STARTTLS');
    expect(await smtp.command('MAIL FROM:<app@example.com>')).toBe('530 5.7.0 Must issue a STARTTLS command first');
    expect(await smtp.command(`AUTH PLAIN ${Buffer.from('\0app\0test-key').toString('base64')}`)).toBe('538 Error: Must issue a STARTTLS command first');
    await smtp.close();
    const plain = await trySend(smtpClient(requiredApp.smtpPort), mail('plain'));
    expect(plain).toEqual({ ok: false, code: 530, response: '530 5.7.0 Must issue a STARTTLS command first' });
  });

  it('accepts the same message once the client has upgraded', async ({ requiredApp }) => {
    const sent = await transport(requiredApp.smtpPort, {
      secure: false,
      requireTLS: true,
      tls: { rejectUnauthorized: false },
      auth: { user: 'app', pass: 'test-key' },
    }).sendMail(mail('after STARTTLS'));
    expect(await requiredApp.sandbox.messages.get(capturedId(sent.response))).toMatchObject({ subject: 'after STARTTLS', sender: 'acme-main' });
  });
});

describe('--smtp-tls-implicit', () => {
  it('speaks TLS from the first byte: nodemailer secure and Python SMTP_SSL send, a plain client gets no greeting', async ({ implicitApp, python }) => {
    const sent = await transport(implicitApp.smtpPort, { secure: true, tls: { rejectUnauthorized: false } }).sendMail(mail('implicit TLS'));
    expect((await implicitApp.sandbox.messages.get(capturedId(sent.response)))?.subject).toBe('implicit TLS');
    const reply = await python(
      `${PY_PREAMBLE}
with smtplib.SMTP_SSL("127.0.0.1", port, context=ssl.create_default_context(cafile=cafile)) as s:
    s.send_message(msg)
    print(s.noop()[0])
`,
      implicitApp.smtpPort,
    );
    expect(reply).toBe('250');
    const plain = await trySend(
      transport(implicitApp.smtpPort, { secure: false, ignoreTLS: true, connectionTimeout: 1500, greetingTimeout: 1500 }) as ReturnType<typeof smtpClient>,
      mail('plain'),
    );
    expect(plain.ok).toBe(false);
  });
});

describe('--smtp-tls-cert auto', () => {
  it('makes a certificate for localhost and the loopback addresses, kept in <data-dir>/tls with a private key file', async ({ tls }) => {
    const { cert, dir } = tls;
    const x509 = new X509Certificate(cert.cert);
    expect(x509.subjectAltName).toBe('DNS:localhost, IP Address:127.0.0.1, IP Address:0:0:0:0:0:0:0:1');
    expect(cert.file).toBe(path.join(dir, 'tls', 'cert.pem'));
    expect(await readFile(cert.file, 'utf8')).toBe(cert.cert);
    expect((await stat(path.join(dir, 'tls', 'key.pem'))).mode & 0o777).toBe(0o600);
    expect(cert.created).toBe(true);
    const days = (Date.parse(x509.validTo) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(820);
    expect(days).toBeLessThanOrEqual(825);
  });

  it('keeps the same certificate across starts, and makes a new one when the names change, it nears its end or it is damaged', async ({ tls }) => {
    const { cert, dir } = tls;
    const names = certificateNames('127.0.0.1', []);
    const again = await autoCertificate(dir, names);
    expect([again.created, again.fingerprint]).toEqual([false, cert.fingerprint]);
    const wider = await autoCertificate(dir, certificateNames('0.0.0.0', ['mail.team.example', '.dev.example']));
    expect(wider.created).toBe(true);
    expect(new X509Certificate(wider.cert).subjectAltName).toContain('DNS:mail.team.example, DNS:dev.example, DNS:*.dev.example');
    const late = await autoCertificate(dir, names, new Date(Date.now() + 800 * 86_400_000));
    expect(late.created).toBe(true);
    await writeFile(path.join(dir, 'tls', 'key.pem'), 'damaged');
    expect((await autoCertificate(dir, names)).created).toBe(true);
    // The files on disk are whole again, and `tls.cert` is what they hold.
    tls.cert = await autoCertificate(dir, names);
  });

  it('the server process prints the file and fingerprint, and keeps them across a restart', async ({ serverProcess: tracker }) => {
    const dataDir = await tracker.tempDir('pigeonhole-auto-tls-');
    const first = await tracker.spawn({ dataDir, args: ['--smtp-tls-cert', 'auto', '--smtp-require-tls'] });
    await expect.poll(() => first.output()).toContain('TLS certificate');
    const line = /TLS certificate: (\S+) \(made now, self-signed, SHA-256 ([0-9A-F:]+)\)/.exec(first.output());
    expect(line?.[1]).toBe(path.join(dataDir, 'tls', 'cert.pem'));
    expect(first.output()).toContain(`SMTP capture:   smtp://127.0.0.1:${first.smtpPort} (STARTTLS required)`);
    const sent = await transport(first.smtpPort, {
      secure: false,
      requireTLS: true,
      tls: { ca: await readFile(line![1]!, 'utf8'), servername: 'localhost' },
    }).sendMail(mail('process'));
    expect(sent.response).toMatch(/^250 2\.0\.0 Captured as/);
    expect(await first.stop('SIGTERM')).toBe(0);
    const second = await tracker.spawn({ dataDir, args: ['--smtp-tls-cert', 'auto', '--smtp-tls-implicit'] });
    await expect.poll(() => second.output()).toContain('TLS certificate');
    expect(second.output()).toContain(`TLS certificate: ${line![1]} (kept, self-signed, SHA-256 ${line![2]})`);
    expect(second.output()).toContain(`SMTP capture:   smtps://127.0.0.1:${second.smtpPort} (implicit TLS)`);
  });
});
