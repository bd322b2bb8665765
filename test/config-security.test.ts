import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, loadOptions } from '../server/config.ts';
import { autoCertificate, certificateNames } from '../server/smtp/tls-certificate.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'pigeonhole-security-options-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

describe('security options', () => {
  it('are off by default', () => {
    expect(loadOptions([], {})).toMatchObject({
      allowedHosts: [],
      allowedOrigins: [],
      auth: null,
      authFile: null,
      smtpTlsCert: null,
      smtpTlsKey: null,
      smtpRequireTls: false,
      smtpTlsImplicit: false,
    });
  });

  it('read comma-separated hosts and origins from flags and the environment, lower case, a trailing slash dropped', () => {
    expect(
      loadOptions(['--allowed-hosts', 'Mail.Team.example, .dev.example,pigeonhole_1'], {
        PIGEONHOLE_ALLOWED_ORIGINS: 'https://Tests.example/, http://localhost:3000,*',
      }),
    ).toMatchObject({
      allowedHosts: ['mail.team.example', '.dev.example', 'pigeonhole_1'],
      allowedOrigins: ['https://tests.example', 'http://localhost:3000', '*'],
    });
    expect(loadOptions([], { PIGEONHOLE_ALLOWED_HOSTS: '*', PIGEONHOLE_ALLOWED_ORIGINS: '' })).toMatchObject({ allowedHosts: ['*'], allowedOrigins: [] });
  });

  it('read --auth as USER:PASSWORD (a password may hold colons); PIGEONHOLE_AUTH= is off', () => {
    expect(loadOptions(['--auth', 'team:a:b'], {}).auth).toEqual({ user: 'team', password: 'a:b' });
    expect(loadOptions([], { PIGEONHOLE_AUTH: 'ci:s3cret' }).auth).toEqual({ user: 'ci', password: 's3cret' });
    expect(loadOptions([], { PIGEONHOLE_AUTH: '' }).auth).toBeNull();
  });

  it('name every bad value without echoing a password', () => {
    expect(() =>
      loadOptions(['--allowed-hosts', 'box.example:8025,ok.example', '--allowed-origins', 'localhost:3000', '--auth', 'secret-without-user'], {}),
    ).toThrow(
      '--allowed-hosts: "box.example:8025": give the name without a port (every port is allowed): box.example\n' +
        '--allowed-origins: "localhost:3000" is not an origin such as http://localhost:3000 or https://app.example.com (scheme and host, no path), or *\n' +
        '--auth: expected USER:PASSWORD, both not empty',
    );
    expect(() => loadOptions([], { PIGEONHOLE_ALLOWED_HOSTS: 'a b', PIGEONHOLE_ALLOWED_ORIGINS: 'https://x.example/path' })).toThrow(
      'PIGEONHOLE_ALLOWED_HOSTS: "a b" is not a host name (such as mail.example.com, .example.com for it and its subdomains, or *)\n' +
        'PIGEONHOLE_ALLOWED_ORIGINS: "https://x.example/path" is not an origin such as http://localhost:3000 or https://app.example.com (scheme and host, no path), or *',
    );
  });

  it('refuse options that need another or exclude one, naming where each came from', () => {
    expect(() => loadOptions(['--auth', 'a:b', '--auth-file', 'users.txt'], {})).toThrow('--auth and --auth-file: give one or the other');
    expect(() => loadOptions(['--smtp-require-tls'], { PIGEONHOLE_SMTP_TLS_IMPLICIT: 'true' })).toThrow(
      '--smtp-require-tls: needs a certificate: --smtp-tls-cert auto, or --smtp-tls-cert and --smtp-tls-key\n' +
        'PIGEONHOLE_SMTP_TLS_IMPLICIT: needs a certificate: --smtp-tls-cert auto, or --smtp-tls-cert and --smtp-tls-key',
    );
    expect(() => loadOptions(['--smtp-tls-cert', 'cert.pem'], {})).toThrow(
      "--smtp-tls-cert: needs --smtp-tls-key, the certificate's private key (or use --smtp-tls-cert auto)",
    );
    expect(() => loadOptions(['--smtp-tls-key', 'key.pem'], {})).toThrow('--smtp-tls-key: needs --smtp-tls-cert, the certificate of this key');
    expect(() => loadOptions(['--smtp-tls-cert', 'auto', '--smtp-tls-key', 'key.pem'], {})).toThrow(
      '--smtp-tls-key: not used with --smtp-tls-cert auto (the key is made with the certificate)',
    );
    expect(loadOptions(['--smtp-tls-cert', 'auto', '--smtp-require-tls', '--smtp-tls-implicit'], {})).toMatchObject({
      smtpTlsCert: 'auto',
      smtpRequireTls: true,
      smtpTlsImplicit: true,
    });
  });

  it('read and check certificate and key files at start: PEM, and belonging together', async () => {
    const one = await autoCertificate(path.join(dir, 'one'), certificateNames('127.0.0.1', []));
    const two = await autoCertificate(path.join(dir, 'two'), certificateNames('127.0.0.1', []));
    const key = path.join(dir, 'one', 'tls', 'key.pem');
    const config = loadConfig(['--smtp-tls-cert', one.file, '--smtp-tls-key', key], {});
    expect(config.smtpTlsFiles).toEqual({ cert: one.cert, key: one.key });
    const otherKey = path.join(dir, 'two', 'tls', 'key.pem');
    expect(() => loadConfig(['--smtp-tls-cert', one.file, '--smtp-tls-key', otherKey], {})).toThrow(
      `--smtp-tls-key: ${otherKey} is not the private key of the certificate ${one.file}`,
    );
    expect(two.fingerprint).not.toBe(one.fingerprint);
    const notPem = path.join(dir, 'not.pem');
    await writeFile(notPem, 'hello');
    expect(() => loadConfig(['--smtp-tls-cert', notPem, '--smtp-tls-key', key], {})).toThrow(`--smtp-tls-cert: ${notPem} is not a PEM certificate`);
    expect(() => loadConfig(['--smtp-tls-cert', one.file, '--smtp-tls-key', notPem], {})).toThrow(
      `--smtp-tls-key: ${notPem} is not a PEM private key (an encrypted key is not supported)`,
    );
  });
});
