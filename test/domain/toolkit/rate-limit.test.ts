import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { describe, expect } from 'vitest';
import { SandboxClock } from '../../../server/domain/time/clock.ts';
import { Directory } from '../../../server/domain/directory/directory.ts';
import { Faults, TokenBucket } from '../../../server/domain/toolkit/faults.ts';
import { SAMPLE_CONFIG } from '../../../server/config.ts';
import { loadSandboxConfig, parseSandboxConfig } from '../../../server/domain/directory/sandbox-config.ts';
import { read } from '../../support/app.ts';
import { test } from '../../support/fixtures.ts';
import { capturedId, smtpClient, trySend } from '../../support/smtp.ts';

const run = promisify(execFile);

/** `addFault(rule)`: adds a fault rule to the file's app through the sandbox API, read. */
const it = test.extend(
  'addFault',
  { scope: 'file' },
  ({ app }) =>
    async (rule: unknown) =>
      read(await fetch(`${app.url}/api/faults`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(rule) })),
);

describe('the rate_limit fault (domain)', () => {
  const setup = () => {
    let realMs = Date.parse('2030-01-01T00:00:00Z');
    const clock = new SandboxClock(() => realMs);
    const faults = new Faults(new Directory(loadSandboxConfig(SAMPLE_CONFIG)), [], clock);
    return { faults, clock, tick: (ms: number) => (realMs += ms) };
  };
  const send = (faults: Faults, sender: string) => faults.matchHttp({ route: '/v1/email/send/', method: 'POST', sender });

  it('lets a burst through, then refuses with the seconds until a token is back, one bucket per API key', () => {
    const { faults, tick } = setup();
    const rule = faults.add({ id: 'throttle', target: 'http', match: { route: '/v1/email/*' }, action: { type: 'rate_limit', rate: 2, burst: 3 } });
    expect(rule.action).toEqual({ type: 'rate_limit', rate: 2, burst: 3 });
    for (let i = 0; i < 3; i++) expect(send(faults, 'acme-main')).toBeNull();
    expect(send(faults, 'acme-main')).toEqual({ type: 'rate_limit', rate: 2, burst: 3, rule: 'throttle', retryAfterSeconds: 1 });
    // Another key has its own bucket.
    expect(send(faults, 'acme-bulk')).toBeNull();
    tick(499);
    expect(send(faults, 'acme-main')).not.toBeNull();
    tick(1);
    expect(send(faults, 'acme-main')).toBeNull();
    expect(faults.get('throttle')).toMatchObject({ matched: 7, fired: 2 });
    // A slow rate says how long the wait really is.
    faults.add({ id: 'slow', target: 'http', match: { route: '/v1/recipients/' }, action: { type: 'rate_limit', rate: 0.2 } });
    const recipients = () => faults.matchHttp({ route: '/v1/recipients/', method: 'GET', sender: 'acme-main' });
    expect(recipients()).toBeNull();
    expect(recipients()).toMatchObject({ rule: 'slow', retryAfterSeconds: 5 });
  });

  it('refills when the sandbox clock is advanced, and keeps counting after it is set back to real time', () => {
    const { faults, clock } = setup();
    faults.add({ target: 'http', action: { type: 'rate_limit', rate: 1, burst: 1 } });
    expect(send(faults, 'acme-main')).toBeNull();
    expect(send(faults, 'acme-main')).not.toBeNull();
    clock.moveTo(clock.now().getTime() + 86_400_000);
    expect(send(faults, 'acme-main')).toBeNull();
    clock.setOffset(0);
    expect(send(faults, 'acme-main')).toMatchObject({ retryAfterSeconds: 1 });
  });

  it('counts SMTP messages at MAIL FROM unless a stage is named; anonymous sessions share one bucket', () => {
    const { faults } = setup();
    faults.add({ id: 'smtp-throttle', target: 'smtp', action: { type: 'rate_limit', rate: 1, burst: 1 } });
    for (const stage of ['connect', 'rcpt', 'data'] as const) expect(faults.matchSmtp({ stage })).toBeNull();
    expect(faults.matchSmtp({ stage: 'mail' })).toBeNull();
    expect(faults.matchSmtp({ stage: 'mail' })).toMatchObject({ rule: 'smtp-throttle', retryAfterSeconds: 1 });
    expect(faults.matchSmtp({ stage: 'mail', sender: 'acme-main' })).toBeNull();
  });

  it('takes a default burst of one second of requests, and refuses rules that make no sense', () => {
    const { faults } = setup();
    expect(faults.add({ target: 'http', action: { type: 'rate_limit', rate: 2.5 } }).action).toEqual({ type: 'rate_limit', rate: 2.5, burst: 3 });
    expect(faults.add({ target: 'http', action: { type: 'rate_limit', rate: 0.1 } }).action).toEqual({ type: 'rate_limit', rate: 0.1, burst: 1 });
    const refusals: [unknown, string][] = [
      [{ target: 'http', action: { type: 'rate_limit', rate: 0 } }, 'action.rate: Too small: expected number to be >0'],
      [{ target: 'http', action: { type: 'rate_limit', rate: 1, burst: 0 } }, 'action.burst: Too small: expected number to be >=1'],
      [
        { target: 'http', action: { type: 'rate_limit', rate: 1 }, times: 3 },
        'times: a rate_limit rule throttles for as long as it exists (remove it to stop)',
      ],
      [{ target: 'http', action: { type: 'rate_limit', rate: 1 }, probability: 0.5 }, 'probability: a rate_limit rule throttles by its bucket, not by chance'],
      [{ target: 'http', action: { type: 'throttle' } }, 'action.type: must be status, delay, drop, smtp_reply or rate_limit'],
    ];
    for (const [rule, message] of refusals) expect(() => faults.add(rule), message).toThrow(message);
  });

  it('comes from the configuration file like the other faults', () => {
    const sample = loadSandboxConfig(SAMPLE_CONFIG);
    const config = parseSandboxConfig(
      {
        ...structuredClone(sample),
        faults: [{ id: 'api-throttle', target: 'http', match: { sender: 'test-key' }, action: { type: 'rate_limit', rate: 10, burst: 20 } }],
      },
      'x.json',
    );
    const faults = new Faults(new Directory(config), config.faults, new SandboxClock());
    expect(faults.list()).toMatchObject([
      { id: 'api-throttle', source: 'config', match: { sender: 'acme-main' }, action: { type: 'rate_limit', rate: 10, burst: 20 } },
    ]);
    expect(() => parseSandboxConfig({ ...structuredClone(sample), faults: [{ target: 'http', action: { type: 'rate_limit' } }] }, 'x.json')).toThrow(
      'faults[0].action.rate',
    );
  });

  it('TokenBucket: a token per 1/rate seconds, never more than the burst', () => {
    const bucket = new TokenBucket(4, 2, 0);
    expect([bucket.take(0), bucket.take(0), bucket.take(0)]).toEqual([0, 0, 250]);
    expect(bucket.take(10_000)).toBe(0);
    expect([bucket.take(10_000), bucket.take(10_000)]).toEqual([0, 250]);
  });
});

/**
 * An application's retry loop, in Python's standard library: sends each email, and on a 429
 * sleeps for Retry-After seconds and tries again. Prints every attempt (monotonic seconds).
 */
const RETRYING_CLIENT = `
import json, sys, time, urllib.error, urllib.parse, urllib.request
base, key, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
attempts = []
for n in range(count):
    while True:
        data = urllib.parse.urlencode({"recipient": f"throttled{n}@example.com", "subject": f"Mail {n}", "body": "<p>hi</p>"}).encode()
        request = urllib.request.Request(base + "/v1/email/send/", data=data, headers={"Authorization": "Api-Key " + key})
        at = time.monotonic()
        try:
            with urllib.request.urlopen(request, timeout=10) as response:
                attempts.append({"n": n, "status": response.status, "at": at})
                break
        except urllib.error.HTTPError as error:
            retry_after = error.headers.get("Retry-After")
            attempts.append({"n": n, "status": error.code, "at": at, "retry_after": retry_after, "body": json.loads(error.read())})
            if error.code != 429:
                raise
            time.sleep(int(retry_after))
print(json.dumps(attempts))
`;

describe('the rate_limit fault over /v1 and SMTP', () => {
  it('answers 429 with Retry-After and the contract 429 body shape; a client that honours it gets every email through, later', async ({ app, addFault }) => {
    const added = await addFault({
      id: 'v1-throttle',
      target: 'http',
      match: { route: '/v1/email/send/', sender: 'bulk-key' },
      action: { type: 'rate_limit', rate: 2, burst: 2 },
    });
    expect(added.status).toBe(201);
    // Real seconds on purpose: the client under test sleeps for Retry-After (the bucket follows the sandbox clock, which follows real time).
    const { stdout } = await run('python3', ['-c', RETRYING_CLIENT, app.url, 'bulk-key', '6']);
    const attempts = JSON.parse(stdout) as { n: number; status: number; at: number; retry_after?: string; body?: unknown }[];
    const refused = attempts.filter((a) => a.status === 429);
    expect(refused.length).toBeGreaterThanOrEqual(1);
    expect(attempts.filter((a) => a.status === 200).map((a) => a.n)).toEqual([0, 1, 2, 3, 4, 5]);
    for (const a of refused) expect(a).toMatchObject({ retry_after: '1', body: { error: 'Request was throttled. Expected available in 1 second.' } });
    // It backed off: every retry came at least Retry-After after the refusal, and it succeeded.
    attempts.forEach((a, i) => {
      if (a.status !== 429) return;
      const next = attempts[i + 1]!;
      expect(next.n).toBe(a.n);
      expect(next.at - a.at).toBeGreaterThanOrEqual(Number(a.retry_after));
      expect(next.status).toBe(200);
    });
    // Six sends at two a second with a burst of two cannot all be in before two seconds.
    expect(attempts.at(-1)!.at - attempts[0]!.at).toBeGreaterThanOrEqual(2 - 0.05);
    const captured = (await read(await fetch(`${app.url}/api/messages/search?q=throttled&limit=50`))).body as { total: number };
    expect(captured.total).toBe(6);
    const log = (await read(await fetch(`${app.url}/api/requests?status=429`))).body as { requests: { fault: string; response: { body: unknown } }[] };
    expect(log.requests).toHaveLength(refused.length);
    expect(log.requests[0]).toMatchObject({ fault: 'v1-throttle', response: { body: { error: 'Request was throttled. Expected available in 1 second.' } } });
    // Another key is not throttled by this rule.
    const other = await fetch(`${app.url}/v1/email/send/`, {
      method: 'POST',
      headers: { Authorization: 'Api-Key test-key', 'Content-Type': 'application/json' },
      body: JSON.stringify({ recipient: 'free@example.com', subject: 's', body: 'b' }),
    });
    expect(other.status).toBe(200);
    await fetch(`${app.url}/api/faults/v1-throttle`, { method: 'DELETE' });
  });

  it('refuses MAIL FROM with 421 4.7.0 and a retry hint over SMTP; a client that waits as told gets through', async ({ app, addFault }) => {
    await addFault({ id: 'smtp-throttle', target: 'smtp', match: { sender: 'bulk-key' }, action: { type: 'rate_limit', rate: 1, burst: 1 } });
    const transport = () => smtpClient(app.smtpPort, { user: 'app', pass: 'bulk-key' });
    const mail = (n: number) => ({ from: 'app@example.com', to: `smtp-throttled${n}@example.com`, subject: `SMTP ${n}`, text: 'hi' });
    const first = await trySend(transport(), mail(1));
    expect(first.ok).toBe(true);
    const second = await trySend(transport(), mail(2));
    expect(second).toEqual({ ok: false, code: 421, response: '421 4.7.0 Rate limit exceeded, try again in 1 second' });
    // The client's retry: wait the seconds the reply gave (on the sandbox clock, which the
    // bucket follows), then send again.
    const seconds = Number(/try again in (\d+) second/.exec((second as { response: string }).response)![1]);
    expect(seconds).toBe(1);
    const clock = (p: string, body: unknown) =>
      fetch(`${app.url}/api/clock/${p}`, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
    expect((await clock('advance', { duration: `${seconds * 1000}ms` })).status).toBe(200);
    const retried = await trySend(transport(), mail(2));
    expect(retried.ok).toBe(true);
    await clock('reset', {});
    const id = capturedId((retried as { response: string }).response);
    expect((await read(await fetch(`${app.url}/api/messages/${id}`))).body).toMatchObject({ subject: 'SMTP 2', sender: 'acme-bulk' });
    // Anonymous sessions are another bucket, which this rule (sender bulk-key) does not match.
    expect((await trySend(smtpClient(app.smtpPort), mail(3))).ok).toBe(true);
    await fetch(`${app.url}/api/faults/smtp-throttle`, { method: 'DELETE' });
  });
});
