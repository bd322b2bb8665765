import { describe, expect } from 'vitest';
import { test as it } from '../support/fixtures.ts';
import { CHROMIUM_HEADERS, raw } from '../support/raw.ts';
import type { ServerProcess } from '../support/server-process.ts';

/**
 * Issue 28, item 6: DNS rebinding through names a LAN peer can answer (mDNS for `*.local`,
 * LLMNR for a dotless name), through the real server process with its real `--host` and
 * `--allowed-hosts`. A rebound page's request carries its own name as `Host` and no `Origin`.
 */

const hostRefusal = (host: string, name: string) => ({
  detail: `Host "${host}" is not an allowed host, so this request is refused (it could come from a web page whose name was pointed at this machine). If you reach Pigeonhole by this name, start it with --allowed-hosts ${name} (or PIGEONHOLE_ALLOWED_HOSTS=${name}).`,
});

/** A password reset with its token, sent through /v1 as an application would. */
async function sendReset(server: ServerProcess): Promise<void> {
  const sent = await raw(`${server.url}/v1/email/send/`, {
    method: 'POST',
    headers: { Authorization: 'Api-Key test-key', 'Content-Type': 'application/json' },
    body: JSON.stringify({ recipient: 'victim@example.com', subject: 'Reset your password', body: '<p>Your reset token: 8f3a9c2e</p>' }),
  });
  expect(sent.status).toBe(200);
}

/** What a rebound page reads: the newest reset, by the name it was loaded from, as Chromium sends it (no Origin, no fetch metadata). */
const rebound = (server: ServerProcess, name: string) =>
  raw(`${server.url}/api/messages/latest?q=reset`, {
    headers: { Host: `${name}:${server.port}`, ...CHROMIUM_HEADERS, Referer: `http://${name}:${server.port}/` },
  });

describe('the default bind (127.0.0.1)', () => {
  it('refuses a page rebound to evil.local or a dotless name, and names --allowed-hosts', async ({ serverProcess }) => {
    const server = await serverProcess.spawn({ dataDir: await serverProcess.tempDir('pigeonhole-rebind-') });
    await sendReset(server);
    for (const name of ['evil.local', 'evilbox', 'printer.home.arpa', 'box.internal']) {
      const res = await rebound(server, name);
      expect([name, res.status, res.body]).toEqual([name, 403, hostRefusal(`${name}:${server.port}`, name)]);
      expect(res.text).not.toContain('8f3a9c2e');
    }
    // What a client on this machine uses is served.
    for (const name of ['localhost', 'mail.localhost', '127.0.0.1', '[::1]']) {
      const res = await rebound(server, name);
      expect([name, res.status]).toEqual([name, 200]);
      expect(res.text).toContain('8f3a9c2e');
    }
  });

  it('serves exactly the names given to --allowed-hosts', async ({ serverProcess }) => {
    const server = await serverProcess.spawn({ dataDir: await serverProcess.tempDir('pigeonhole-rebind-'), args: ['--allowed-hosts', 'evilbox,.local'] });
    await sendReset(server);
    for (const name of ['evilbox', 'evil.local', 'a.b.local']) expect([name, (await rebound(server, name)).status]).toEqual([name, 200]);
    expect((await rebound(server, 'otherbox')).status).toBe(403);
  });
});

describe('a bind other machines reach (a container: --host 0.0.0.0)', () => {
  it('serves a compose service name, as docs/containers.md promises, and still refuses a public name', async ({ serverProcess }) => {
    const server = await serverProcess.spawn({ dataDir: await serverProcess.tempDir('pigeonhole-rebind-'), args: ['--host', '0.0.0.0'] });
    const sent = await raw(`${server.url}/v1/email/send/`, {
      method: 'POST',
      headers: { Host: 'pigeonhole:8025', Authorization: 'Api-Key test-key', 'Content-Type': 'application/x-www-form-urlencoded' },
      body: 'recipient=compose@example.com&subject=Reset+your+password&body=token+8f3a9c2e',
    });
    expect([sent.status, sent.body]).toEqual([200, { id: expect.any(String) }]);
    const read = await raw(`${server.url}/api/messages/latest?q=reset`, { headers: { Host: 'pigeonhole:8025', 'User-Agent': 'python-requests/2.32' } });
    expect([read.status, read.body.recipient]).toEqual([200, 'compose@example.com']);
    const res = await rebound(server, 'evil.example');
    expect([res.status, res.body]).toEqual([403, hostRefusal(`evil.example:${server.port}`, 'evil.example')]);
  });
});
