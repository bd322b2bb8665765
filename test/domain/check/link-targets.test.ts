import { lookup } from 'node:dns/promises';
import { afterAll, beforeAll, beforeEach, describe, expect } from 'vitest';
import { loadConfig } from '../../../server/config.ts';
import { addressKind, isLoopbackHost, linkTargetPolicy } from '../../../server/domain/check/link-targets.ts';
import { checkLink } from '../../../server/domain/check/links.ts';
import { api, read, startApp } from '../../support/app.ts';
import { test } from '../../support/fixtures.ts';
import { startLinkSite, type LinkSite } from '../../support/link-servers.ts';

// Only loopback addresses are ever contacted here: every other address in this file is refused
// before a socket is opened, which is what the tests assert.

/** The site a link to a private address would reach (127.0.0.1), and a "public" one (127.0.0.2, allowed by --link-check-allow). */
let local: LinkSite;
let outside: LinkSite;
beforeAll(async () => {
  local = await startLinkSite('127.0.0.1');
  outside = await startLinkSite('127.0.0.2');
});
afterAll(async () => {
  await local.close();
  await outside.close();
});
beforeEach(() => {
  local.requests.length = 0;
  outside.requests.length = 0;
});

const NOTE =
  'Pigeonhole listens on 0.0.0.0, so the link check reaches public addresses only (--link-check-private or --link-check-allow lets it reach others).';

interface Link {
  url: string;
  status: number | null;
  ok: boolean;
  final_url: string;
  redirects: number;
  error: string | null;
}

/** An app listening on 0.0.0.0 (a shared box) with these link-check options; `check(html)` sends the HTML and checks its links. */
const startShared = async (linkCheck: { private?: boolean; allow?: string[] }) => {
  const app = await startApp({ host: '0.0.0.0', linkCheck });
  const v1 = api(app.url, 'test-key');
  return {
    app,
    async check(html: string): Promise<{ status: number; body: { total: number; broken: number; links: Link[] } }> {
      const sent = (await read(await v1.post('/v1/email/send/', { recipient: 'ssrf@example.com', subject: 'Links', body: html }))).body as { id: string };
      const res = await read(await fetch(`${app.url}/api/messages/${sent.id}/check/links`, { method: 'POST' }));
      return res as never;
    },
  };
};

const it = test
  .extend('shared', { scope: 'file' }, async ({}, { onCleanup }) => {
    const shared = await startShared({ allow: ['127.0.0.2'] });
    onCleanup(() => shared.app.destroy());
    return shared;
  })
  .extend('permissive', { scope: 'file' }, async ({}, { onCleanup }) => {
    const permissive = await startShared({ private: true });
    onCleanup(() => permissive.app.destroy());
    return permissive;
  });

describe('the link check on a server listening on a non-loopback address', () => {
  it('refuses loopback, private, link-local and unspecified targets with the reason, and sends them nothing', async ({ shared }) => {
    const port = new URL(local.url).port;
    const urls = [
      `http://127.0.0.1:${port}/ok`,
      'http://169.254.169.254/latest/meta-data/',
      `http://[::ffff:127.0.0.1]:${port}/ok`,
      'http://[::ffff:a9fe:a9fe]/latest/meta-data/',
      `http://0.0.0.0:${port}/ok`,
      'http://10.1.2.3/admin',
      'http://192.168.0.1/',
      'http://[fd00::1]/',
      'http://[fe80::1]/',
      `http://2130706433:${port}/ok`,
    ];
    const res = await shared.check(urls.map((u) => `<a href="${u}">x</a>`).join('\n'));
    expect(res.status).toBe(200);
    expect(res.body.broken).toBe(res.body.total);
    expect(res.body.links.map((l) => [l.url, l.status, l.ok, l.error])).toEqual([
      [`http://127.0.0.1:${port}/ok`, null, false, `Not requested: 127.0.0.1 is a loopback address. ${NOTE}`],
      [
        'http://169.254.169.254/latest/meta-data/',
        null,
        false,
        `Not requested: 169.254.169.254 is a link-local address (cloud metadata lives at 169.254.169.254). ${NOTE}`,
      ],
      [`http://[::ffff:7f00:1]:${port}/ok`, null, false, `Not requested: ::ffff:7f00:1 is a loopback address. ${NOTE}`],
      [
        'http://[::ffff:a9fe:a9fe]/latest/meta-data/',
        null,
        false,
        `Not requested: ::ffff:a9fe:a9fe is a link-local address (cloud metadata lives at 169.254.169.254). ${NOTE}`,
      ],
      [`http://0.0.0.0:${port}/ok`, null, false, `Not requested: 0.0.0.0 is an unspecified address (it reaches this machine). ${NOTE}`],
      ['http://10.1.2.3/admin', null, false, `Not requested: 10.1.2.3 is a private address. ${NOTE}`],
      ['http://192.168.0.1/', null, false, `Not requested: 192.168.0.1 is a private address. ${NOTE}`],
      ['http://[fd00::1]/', null, false, `Not requested: fd00::1 is a private address (unique local). ${NOTE}`],
      ['http://[fe80::1]/', null, false, `Not requested: fe80::1 is a link-local address. ${NOTE}`],
    ]);
    // The decimal host 2130706433 is 127.0.0.1 as the URL reads it: the same link, checked once.
    expect(res.body.total).toBe(urls.length - 1);
    expect(local.requests).toEqual([]);
  });

  it('judges a name by the address it resolves to', async ({ shared }) => {
    const port = new URL(local.url).port;
    const [first] = await lookup('localhost', { all: true });
    const res = await shared.check(`<a href="http://localhost:${port}/ok">x</a>`);
    expect(res.body.links.map((l) => l.error)).toEqual([`Not requested: localhost resolves to ${first!.address}, a loopback address. ${NOTE}`]);
    expect(local.requests).toEqual([]);
  });

  it('refuses a redirect from an allowed site into loopback, and reaches the allowed site itself', async ({ shared }) => {
    const target = `${local.url}/ok`;
    const res = await shared.check(`<a href="${outside.url}/to?${encodeURIComponent(target)}">x</a><a href="${outside.url}/moved">y</a>`);
    expect(res.body.links.map((l) => [l.status, l.ok, l.final_url, l.redirects, l.error])).toEqual([
      [null, false, target, 1, `Not requested: 127.0.0.1 is a loopback address. ${NOTE}`],
      [200, true, `${outside.url}/ok`, 2, null],
    ]);
    expect(outside.requests.map((r) => r.path)).toEqual([`/to?${encodeURIComponent(target)}`, '/moved', '/moved-again', '/ok']);
    expect(local.requests).toEqual([]);
  });

  it('reaches private targets with --link-check-private', async ({ permissive }) => {
    const res = await permissive.check(`<a href="${local.url}/moved">x</a>`);
    expect(res.body.links.map((l) => [l.status, l.ok, l.error])).toEqual([[200, true, null]]);
    expect(local.requests.map((r) => r.path)).toEqual(['/moved', '/moved-again', '/ok']);
  });
});

describe('the link check on a loopback listener (the laptop default)', () => {
  it('reaches localhost and loopback addresses as before', async ({ app, v1 }) => {
    const port = new URL(local.url).port;
    const sent = (
      await read(await v1.post('/v1/email/send/', { recipient: 'l@example.com', subject: 's', body: `<a href="http://localhost:${port}/ok">l</a>` }))
    ).body as { id: string };
    const res = await read(await fetch(`${app.url}/api/messages/${sent.id}/check/links`, { method: 'POST' }));
    expect((res.body as { links: Link[] }).links.map((l) => [l.status, l.error])).toEqual([[200, null]]);
    expect(local.requests).toEqual([{ method: 'HEAD', path: '/ok' }]);
  });
});

describe('which addresses are private', () => {
  it('names each kind, IPv4-mapped, IPv4-compatible and NAT64 forms by the IPv4 address they carry', () => {
    const kinds = Object.fromEntries(
      [
        '8.8.8.8',
        '93.184.216.34',
        '127.0.0.1',
        '127.255.255.254',
        '0.0.0.0',
        '10.0.0.1',
        '172.16.0.1',
        '172.32.0.1',
        '192.168.1.1',
        '169.254.169.254',
        '100.100.100.200',
        '224.0.0.1',
        '255.255.255.255',
        '::',
        '::1',
        '2001:db8::1',
        '2606:4700::1111',
        'fc00::1',
        'fdff:ffff::1',
        'fe80::1%eth0',
        'febf::1',
        'ff02::1',
        '::ffff:127.0.0.1',
        '::ffff:7f00:1',
        '::ffff:169.254.169.254',
        '::ffff:8.8.8.8',
        '::127.0.0.1',
        '64:ff9b::a9fe:a9fe',
        '64:ff9b::808:808',
      ].map((a) => [a, addressKind(a)]),
    );
    expect(kinds).toEqual({
      '8.8.8.8': null,
      '93.184.216.34': null,
      '127.0.0.1': 'a loopback address',
      '127.255.255.254': 'a loopback address',
      '0.0.0.0': 'an unspecified address (it reaches this machine)',
      '10.0.0.1': 'a private address',
      '172.16.0.1': 'a private address',
      '172.32.0.1': null,
      '192.168.1.1': 'a private address',
      '169.254.169.254': 'a link-local address (cloud metadata lives at 169.254.169.254)',
      '100.100.100.200': 'a shared address (carrier-grade NAT, some cloud metadata services)',
      '224.0.0.1': 'a multicast address',
      '255.255.255.255': 'a reserved or broadcast address',
      '::': 'an unspecified address (it reaches this machine)',
      '::1': 'a loopback address',
      '2001:db8::1': null,
      '2606:4700::1111': null,
      'fc00::1': 'a private address (unique local)',
      'fdff:ffff::1': 'a private address (unique local)',
      'fe80::1%eth0': 'a link-local address',
      'febf::1': 'a link-local address',
      'ff02::1': 'a multicast address',
      '::ffff:127.0.0.1': 'a loopback address',
      '::ffff:7f00:1': 'a loopback address',
      '::ffff:169.254.169.254': 'a link-local address (cloud metadata lives at 169.254.169.254)',
      '::ffff:8.8.8.8': null,
      '::127.0.0.1': 'a loopback address',
      '64:ff9b::a9fe:a9fe': 'a link-local address (cloud metadata lives at 169.254.169.254)',
      '64:ff9b::808:808': null,
    });
  });

  it('treats localhost and loopback --host values as a laptop, anything else as a shared box', () => {
    for (const host of ['127.0.0.1', '127.0.0.2', 'localhost', '::1', '[::1]', 'app.localhost']) expect(isLoopbackHost(host), host).toBe(true);
    for (const host of ['0.0.0.0', '::', '192.168.1.5', 'pigeonhole', 'mail.example.com']) expect(isLoopbackHost(host), host).toBe(false);
  });

  it('lets --link-check-allow networks through, and nothing else private', async () => {
    const policy = linkTargetPolicy({ listenHost: '::', allowPrivate: false, allow: ['10.1.0.0/16', 'fd00:1::/32', '127.0.0.2'] });
    expect(['10.1.200.3', '10.2.0.1', 'fd00:1:2::3', 'fd00:2::1', '127.0.0.2', '127.0.0.1', '8.8.8.8'].map((a) => [a, policy.refused(a)])).toEqual([
      ['10.1.200.3', null],
      ['10.2.0.1', 'a private address'],
      ['fd00:1:2::3', null],
      ['fd00:2::1', 'a private address (unique local)'],
      ['127.0.0.2', null],
      ['127.0.0.1', 'a loopback address'],
      ['8.8.8.8', null],
    ]);
    // The domain function alone says the same for a redirect into loopback.
    const result = await checkLink({ url: `${outside.url}/to?${encodeURIComponent(`${local.url}/ok`)}`, kind: 'link', lines: [1] }, { policy });
    expect(result).toMatchObject({ status: null, ok: false, redirects: 1, final_url: `${local.url}/ok` });
    expect(result.error).toBe(
      'Not requested: 127.0.0.1 is a loopback address. Pigeonhole listens on ::, so the link check reaches public addresses only (--link-check-private or --link-check-allow lets it reach others).',
    );
  });
});

describe('the link-check options', () => {
  it('take --link-check-private as a switch and --link-check-allow as networks, and name a bad one', () => {
    expect(loadConfig([], {})).toMatchObject({ linkCheckPrivate: false, linkCheckAllow: [] });
    expect(loadConfig(['--link-check-private', '--link-check-allow', '10.1.0.0/16, fd00::/8,10.1.2.3'], {})).toMatchObject({
      linkCheckPrivate: true,
      linkCheckAllow: ['10.1.0.0/16', 'fd00::/8', '10.1.2.3'],
    });
    expect(loadConfig([], { PIGEONHOLE_LINK_CHECK_PRIVATE: 'yes', PIGEONHOLE_LINK_CHECK_ALLOW: '192.168.0.0/24' })).toMatchObject({
      linkCheckPrivate: true,
      linkCheckAllow: ['192.168.0.0/24'],
    });
    for (const bad of ['10.0.0.0/33', 'intranet', '10.0.0.0/8/8', '10.0.0.0/x'])
      expect(() => loadConfig(['--link-check-allow', bad], {})).toThrow(
        `--link-check-allow: "${bad}" is not an IP address or network such as 10.1.0.0/16, fd00::/8 or 10.1.2.3`,
      );
  });
});
