import { spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import bcrypt from 'bcryptjs';
import { describe, expect } from 'vitest';
import { PigeonholeClient, PigeonholeError } from '../../client/pigeonhole-client.ts';
import { loadConfig } from '../../server/config.ts';
import { createLogin } from '../../server/http/basic-auth.ts';
import { browserPolicy } from '../../server/http/browser-guard.ts';
import { startApp, type TestServer } from '../support/app.ts';
import { test } from '../support/fixtures.ts';
import { raw, tryUpgrade } from '../support/raw.ts';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const basic = (userPassword: string) => `Basic ${Buffer.from(userPassword).toString('base64')}`;
/** Every path's challenge but the login page's: another realm, which a browser never answers with the login it keeps for the login page. */
const CHALLENGE = 'Basic realm="Pigeonhole API"';
const PAGE_CHALLENGE = 'Basic realm="Pigeonhole"';
const NO_LOGIN = { detail: 'This Pigeonhole needs a user name and password (HTTP Basic, as set with --auth or --auth-file).' };
const WRONG = { detail: 'Wrong user name or password.' };

/** Every surface behind the login but the inbox page: its assets, the sandbox API, /metrics, unknown paths. */
const PROTECTED = ['/assets/index.js', '/api/messages', '/api/openapi.json', '/api/clock', '/metrics', '/nowhere'];

/** An app with the browser guard's defaults and this login, destroyed when the file is done. */
async function appWithLogin(login: ReturnType<typeof createLogin>, onCleanup: (fn: () => Promise<void>) => void): Promise<TestServer> {
  const app = await startApp({ access: { policy: browserPolicy(), login } });
  onCleanup(() => app.destroy());
  return app;
}

/**
 * For the file: `dir` a temporary directory; `loginApp` an app with --auth team:pa:ss wörd;
 * `usersApp` one with --auth-file (alice and bob, bcrypt hashes, one written as $2y$).
 */
const it = test
  .extend('dir', { scope: 'file' }, async ({}, { onCleanup }) => {
    const dir = await mkdtemp(path.join(tmpdir(), 'pigeonhole-login-'));
    onCleanup(() => rm(dir, { recursive: true, force: true }));
    return dir;
  })
  .extend('loginApp', { scope: 'file' }, ({}, { onCleanup }) => appWithLogin(createLogin({ user: 'team', password: 'pa:ss wörd' }), onCleanup))
  .extend('usersApp', { scope: 'file' }, async ({ dir }, { onCleanup }) => {
    const file = path.join(dir, 'users.txt');
    // `htpasswd -nbB` writes $2y$: read as bcrypt too.
    await writeFile(file, `# the team\nalice:${bcrypt.hashSync('alice-secret', 4)}\n\nbob:${bcrypt.hashSync('bob-secret', 4).replace('$2b$', '$2y$')}\n`);
    const config = loadConfig(['--auth-file', file], {});
    expect(config.authUsers.map((u) => u.user)).toEqual(['alice', 'bob']);
    return appWithLogin(createLogin({ users: config.authUsers }), onCleanup);
  });

describe('--auth USER:PASSWORD', () => {
  it('answers every protected surface 401 with the Basic challenge and a JSON detail without a login', async ({ loginApp }) => {
    for (const p of PROTECTED) {
      const res = await raw(loginApp.url + p);
      expect([p, res.status, res.headers['www-authenticate'], res.body]).toEqual([p, 401, CHALLENGE, NO_LOGIN]);
    }
  });

  it('refuses a wrong user or password, and a header that is not Basic', async ({ loginApp }) => {
    for (const authorization of [basic('team:wrong'), basic('other:pa:ss wörd'), basic('team'), 'Bearer abc', 'Basic !!!']) {
      const res = await raw(`${loginApp.url}/api/messages`, { headers: { Authorization: authorization } });
      expect([authorization, res.status, res.headers['www-authenticate']]).toEqual([authorization, 401, CHALLENGE]);
    }
    expect((await raw(`${loginApp.url}/api/messages`, { headers: { Authorization: basic('team:wrong') } })).body).toEqual(WRONG);
  });

  it('sends a browser without a session from the inbox page to the login page', async ({ loginApp }) => {
    const res = await raw(`${loginApp.url}/`, { headers: { Accept: 'text/html' } });
    expect([res.status, res.headers.location, res.headers['cache-control'], res.text]).toEqual([
      303,
      '/auth/login',
      'no-store',
      '{"detail":"Log in at /auth/login."}',
    ]);
  });

  it('serves every protected surface with the login (a password with a colon and non-ASCII letters)', async ({ loginApp }) => {
    for (const p of ['/', ...PROTECTED.filter((x) => x !== '/nowhere' && x !== '/assets/index.js')]) {
      const res = await raw(loginApp.url + p, { headers: { Authorization: basic('team:pa:ss wörd') } });
      expect([p, res.status]).toEqual([p, 200]);
    }
    const reset = await raw(`${loginApp.url}/api/reset`, { method: 'POST', headers: { Authorization: basic('team:pa:ss wörd') } });
    expect(reset.status).toBe(200);
  });

  it('guards the live push: 401 with the challenge before any frame, open with the login', async ({ loginApp }) => {
    const refused = await tryUpgrade(loginApp.wsUrl);
    expect(refused).toMatchObject({ opened: false, status: 401, frames: [], headers: { 'www-authenticate': CHALLENGE } });
    expect(refused.opened === false && JSON.parse(refused.text)).toEqual(NO_LOGIN);
    const wrong = await tryUpgrade(loginApp.wsUrl, { Authorization: basic('team:nope') });
    expect(wrong).toMatchObject({ opened: false, status: 401 });
    const ok = await tryUpgrade(loginApp.wsUrl, { Authorization: basic('team:pa:ss wörd') });
    expect(ok.opened && JSON.parse(ok.frames[0]!).type).toBe('hello');
  });

  it('leaves /v1 to its Api-Key auth, and /livez and /readyz open', async ({ loginApp }) => {
    const sent = await raw(`${loginApp.url}/v1/email/send/`, {
      method: 'POST',
      headers: { Authorization: 'Api-Key test-key', 'Content-Type': 'application/json' },
      body: JSON.stringify({ recipient: 'v1@example.com', subject: 'Hi', body: '<p>Hi</p>' }),
    });
    expect([sent.status, sent.body]).toEqual([200, { id: expect.any(String) }]);
    const noKey = await raw(`${loginApp.url}/v1/email/list/`);
    expect([noKey.status, noKey.body, noKey.headers['www-authenticate']]).toEqual([
      401,
      { detail: 'Authentication credentials were not provided.' },
      'Api-Key',
    ]);
    for (const p of ['/livez', '/readyz']) expect((await raw(loginApp.url + p)).status).toBe(200);
  });

  it('answers a CORS preflight from an allowed origin without a login (preflights carry none); a refusal is readable there', async ({ loginApp }) => {
    const origin = 'http://localhost:3000';
    const preflight = await raw(`${loginApp.url}/api/messages`, {
      method: 'OPTIONS',
      headers: { Origin: origin, 'Access-Control-Request-Method': 'GET', 'Access-Control-Request-Headers': 'authorization' },
    });
    expect([preflight.status, preflight.headers['access-control-allow-headers']]).toEqual([204, 'authorization']);
    const refused = await raw(`${loginApp.url}/api/messages`, { headers: { Origin: origin } });
    expect([refused.status, refused.headers['access-control-allow-origin']]).toEqual([401, origin]);
    const read = await raw(`${loginApp.url}/api/messages`, { headers: { Origin: origin, Authorization: basic('team:pa:ss wörd') } });
    expect([read.status, read.headers['access-control-allow-origin']]).toEqual([200, origin]);
  });

  it('the typed client logs in with auth, or with user:password@ in its base URL; without, it gets a 401', async ({ loginApp }) => {
    const url = new URL(loginApp.url);
    for (const client of [
      new PigeonholeClient({ baseUrl: loginApp.url, auth: 'team:pa:ss wörd' }),
      new PigeonholeClient({ baseUrl: loginApp.url, auth: { user: 'team', password: 'pa:ss wörd' } }),
      new PigeonholeClient({ baseUrl: `http://team:${encodeURIComponent('pa:ss wörd')}@${url.host}` }),
    ]) {
      expect(client.baseUrl).toBe(loginApp.url);
      expect((await client.clock.get()).real_time).toBe(true);
      const { id } = await client.sendEmail({ apiKey: 'test-key', recipient: 'client@example.com', subject: 'Typed', body: '<p>code 482913</p>' });
      expect((await client.waitForMessage({ subject: 'Typed', timeout: 2000 })).id).toBe(id);
    }
    const error = await new PigeonholeClient({ baseUrl: loginApp.url }).clock.get().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PigeonholeError);
    expect(error).toMatchObject({ status: 401, body: NO_LOGIN });
  });
});

describe('the login page and the inbox session (a browser)', () => {
  it('asks with the Basic prompt, then sets a SameSite=Strict HttpOnly cookie and opens the inbox with a page, not a redirect', async ({ loginApp }) => {
    const ask = await raw(`${loginApp.url}/auth/login`, { headers: { Accept: 'text/html' } });
    expect([ask.status, ask.headers['www-authenticate'], ask.body]).toEqual([401, PAGE_CHALLENGE, NO_LOGIN]);
    const wrong = await raw(`${loginApp.url}/auth/login`, { headers: { Authorization: basic('team:nope') } });
    expect([wrong.status, wrong.headers['www-authenticate'], wrong.body]).toEqual([401, PAGE_CHALLENGE, WRONG]);
    const res = await raw(`${loginApp.url}/auth/login`, { headers: { Authorization: basic('team:pa:ss wörd') } });
    expect(res.status).toBe(200);
    expect(res.headers['set-cookie']).toEqual([expect.stringMatching(/^pigeonhole_session=[\w-]{43}; Path=\/; HttpOnly; SameSite=Strict$/)]);
    expect(res.headers).toMatchObject({ 'cache-control': 'no-store', 'x-frame-options': 'DENY', 'content-type': 'text/html; charset=utf-8' });
    expect(res.headers['content-security-policy']).toMatch(/^default-src 'none'; script-src 'sha256-[\w+/=]+'; frame-ancestors 'none'$/);
    expect(res.text).toContain('<meta http-equiv="refresh" content="1; url=/">');
  });

  it('the cookie lets in the inbox page, the API and the live push; a session that ended gets no Basic challenge (no prompt)', async ({ loginApp }) => {
    const login = await raw(`${loginApp.url}/auth/login`, { headers: { Authorization: basic('team:pa:ss wörd') } });
    const cookie = login.headers['set-cookie']![0]!.split(';')[0]!;
    for (const p of ['/', '/api/messages', '/metrics'])
      expect([p, (await raw(loginApp.url + p, { headers: { Cookie: `theme=dark; ${cookie}` } })).status]).toEqual([p, 200]);
    const reset = await raw(`${loginApp.url}/api/clock/reset`, { method: 'POST', headers: { Cookie: cookie, Origin: loginApp.url } });
    expect(reset.status).toBe(200);
    const ws = await tryUpgrade(loginApp.wsUrl, { Cookie: cookie });
    expect(ws.opened && JSON.parse(ws.frames[0]!).type).toBe('hello');

    const ended = await raw(`${loginApp.url}/api/messages`, { headers: { Cookie: 'pigeonhole_session=gone' } });
    expect([ended.status, ended.headers['www-authenticate'], ended.text]).toEqual([
      401,
      'Session realm="Pigeonhole", cookie="pigeonhole_session"',
      '{"detail":"Your login session has ended (the server restarted, or too many sessions were opened). Open the inbox again to log in (a script: send HTTP Basic)."}',
    ]);
    const page = await raw(`${loginApp.url}/`, { headers: { Cookie: 'pigeonhole_session=gone' } });
    expect([page.status, page.headers.location]).toEqual([303, '/auth/login']);
    const closed = await tryUpgrade(loginApp.wsUrl, { Cookie: 'pigeonhole_session=gone' });
    expect(closed).toMatchObject({ opened: false, status: 401, frames: [] });
  });
});

describe('failed logins are throttled per client address', () => {
  it('10 failures, then 429 with Retry-After before any comparison, even for the right password; one more try per 6 s', async ({ apps }) => {
    let now = 1_000_000;
    const app = await apps.start({ access: { policy: browserPolicy(), login: createLogin({ user: 'team', password: 'right' }, { now: () => now }) } });
    const status = async (login: string) => {
      const res = await raw(`${app.url}/api/messages`, { headers: { Authorization: basic(login) } });
      return [res.status, res.headers['retry-after'], res.text];
    };
    for (let i = 0; i < 10; i++) expect(await status(`team:guess-${i}`)).toEqual([401, undefined, JSON.stringify(WRONG)]);
    const throttled = [429, '6', '{"detail":"Too many failed logins from this address: try again in 6 seconds."}'];
    expect(await status('team:guess-10')).toEqual(throttled);
    expect(await status('team:right')).toEqual(throttled);
    const page = await raw(`${app.url}/auth/login`, { headers: { Authorization: basic('team:right') } });
    expect([page.status, page.headers['retry-after'], page.text]).toEqual(throttled);
    // No login at all is not a failure: still the 401 that asks for one.
    expect((await raw(`${app.url}/api/messages`)).status).toBe(401);
    now += 3000;
    expect(await status('team:right')).toEqual([429, '3', '{"detail":"Too many failed logins from this address: try again in 3 seconds."}']);
    now += 3000;
    expect(await status('team:right')).toEqual([200, undefined, expect.any(String)]);
    expect(await status('team:guess-11')).toEqual([401, undefined, JSON.stringify(WRONG)]);
    expect(await status('team:guess-12')).toEqual(throttled);
    // A login this address used before passes on its digest while the address waits; a session too.
    expect((await status('team:right'))[0]).toBe(200);
  });

  it('with --auth-file, a throttled address costs no bcrypt: the right password is refused before it is compared', async ({ apps }) => {
    const now = 5_000_000;
    const users = [{ user: 'alice', hash: bcrypt.hashSync('alice-secret', 4) }];
    const app = await apps.start({ access: { policy: browserPolicy(), login: createLogin({ users }, { now: () => now }) } });
    for (let i = 0; i < 10; i++) expect((await raw(`${app.url}/api/messages`, { headers: { Authorization: basic(`alice:no-${i}`) } })).status).toBe(401);
    const res = await raw(`${app.url}/api/messages`, { headers: { Authorization: basic('alice:alice-secret') } });
    expect([res.status, res.headers['retry-after']]).toEqual([429, '6']);
    const ws = await tryUpgrade(app.wsUrl, { Authorization: basic('alice:alice-secret') });
    expect(ws.opened === false && [ws.status, ws.headers['retry-after'], ws.text]).toEqual([
      429,
      '6',
      '{"detail":"Too many failed logins from this address: try again in 6 seconds."}',
    ]);
  });
});

describe('--auth-file with bcrypt hashes', () => {
  it('lets each user in with their password, and nobody else', async ({ usersApp }) => {
    const status = async (login: string) => (await raw(`${usersApp.url}/api/messages`, { headers: { Authorization: basic(login) } })).status;
    expect(await status('alice:alice-secret')).toBe(200);
    expect(await status('bob:bob-secret')).toBe(200);
    expect(await status('alice:alice-secret')).toBe(200);
    expect(await status('alice:bob-secret')).toBe(401);
    expect(await status('carol:alice-secret')).toBe(401);
    expect(await status('bob:')).toBe(401);
  });

  it('names the file, the line and the problem of a bad auth file (exit 2 at start)', async ({ dir }) => {
    const bad = path.join(dir, 'bad.txt');
    await writeFile(bad, `alice:plain-password\n:${bcrypt.hashSync('x', 4)}\nbob:${bcrypt.hashSync('x', 4)}\nbob:${bcrypt.hashSync('y', 4)}\n`);
    expect(() => loadConfig(['--auth-file', bad], {})).toThrow(
      `Invalid auth file ${bad}:\n` +
        '  line 1: the hash of "alice" is not a bcrypt hash ($2b$10$... ; make one with "pigeonhole hash-password alice")\n' +
        '  line 2: expected user:hash\n' +
        '  line 4: "bob" is listed twice',
    );
    expect(() => loadConfig(['--auth-file', path.join(dir, 'missing.txt')], {})).toThrow(`--auth-file: cannot read ${path.join(dir, 'missing.txt')} (ENOENT)`);
  });
});

describe('without a login (the default)', () => {
  it('serves every surface and the live push to anyone on an allowed host, as before', async ({ app }) => {
    for (const p of ['/', ...PROTECTED.filter((x) => x !== '/nowhere' && x !== '/assets/index.js')])
      expect([p, (await raw(app.url + p)).status]).toEqual([p, 200]);
    expect((await raw(`${app.url}/auth/login`)).status).toBe(404);
    expect((await tryUpgrade(app.wsUrl)).opened).toBe(true);
  });
});

describe('the real server process with --auth', () => {
  it('asks for the login, and `pigeonhole healthcheck` still answers ready', async ({ serverProcess: tracker }) => {
    const server = await tracker.spawn({ dataDir: await tracker.tempDir('pigeonhole-auth-'), env: { PIGEONHOLE_AUTH: 'team:secret' } });
    expect(server.output()).toContain(`listening on http://127.0.0.1:${server.port} (login required)`);
    expect((await raw(`${server.url}/api/messages`)).status).toBe(401);
    expect((await raw(`${server.url}/api/messages`, { headers: { Authorization: basic('team:secret') } })).status).toBe(200);
    const check = await run(['bin/pigeonhole.js', 'healthcheck', '--http-port', String(server.port)], '', { PIGEONHOLE_AUTH: 'team:secret' });
    expect(check).toEqual({ code: 0, stdout: `ready: http://127.0.0.1:${server.port}/readyz\n`, stderr: '' });
  });
});

describe('pigeonhole hash-password', () => {
  it('prints user:hash for a password on standard input, a line --auth-file reads', async ({ dir }) => {
    const result = await run(['bin/pigeonhole.js', 'hash-password', 'alice'], 'correct horse\n');
    expect(result.code).toBe(0);
    const line = result.stdout.trim();
    expect(line).toMatch(/^alice:\$2b\$10\$[./A-Za-z0-9]{53}$/);
    expect(bcrypt.compareSync('correct horse', line.slice('alice:'.length))).toBe(true);
    const file = path.join(dir, 'made.txt');
    await writeFile(file, `${line}\n`);
    const login = createLogin({ users: loadConfig(['--auth-file', file], {}).authUsers })!;
    expect(await login.verify('alice', 'correct horse')).toBe(true);
    expect(await login.verify('alice', 'wrong')).toBe(false);
  });

  it('refuses an empty password and a user name with a colon (exit 2)', async () => {
    expect(await run(['bin/pigeonhole.js', 'hash-password'], '')).toEqual({
      code: 2,
      stdout: '',
      stderr: 'pigeonhole: hash-password: no password on standard input\n',
    });
    expect(await run(['bin/pigeonhole.js', 'hash-password', 'a:b'], 'x\n')).toMatchObject({
      code: 2,
      stderr: 'pigeonhole: hash-password: the user name may not be empty or contain ":"\n',
    });
  });
});

/** Runs the command line with the given standard input and a clean PIGEONHOLE_* environment. */
function run(args: string[], input: string, env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('PIGEONHOLE_')));
  return new Promise((resolve) => {
    const child = spawn(process.execPath, args, { cwd: ROOT, env: { ...clean, ...env } });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
    child.stdin.end(input);
  });
}
