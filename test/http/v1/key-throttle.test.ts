import { request } from 'node:http';
import { describe, expect } from 'vitest';
import { test as it } from '../../support/fixtures.ts';

/**
 * Issue 28, item 8: guesses of /v1 API keys are throttled per client address with the login's
 * limiter (10 at once, then one every 6 s), through the real server; valid keys and a client
 * that repeats one wrong key never meet it.
 */

interface Answer {
  status: number;
  retryAfter: string | undefined;
  authenticate: string | undefined;
  text: string;
}

/** A /v1 send with `key`, from `localAddress` (another loopback address is another client). */
function send(url: string, key: string, localAddress = '127.0.0.1'): Promise<Answer> {
  const body = JSON.stringify({ recipient: 'guess@example.com', subject: 'S', body: '<p>B</p>' });
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}/v1/email/send/`,
      { method: 'POST', localAddress, headers: { Authorization: `Api-Key ${key}`, 'Content-Type': 'application/json' } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode!,
            retryAfter: res.headers['retry-after'],
            authenticate: res.headers['www-authenticate'] as string | undefined,
            text,
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

const CREDENTIALS = '{"detail":"Authentication credentials were not provided."}';
const unauthorized = { status: 401, retryAfter: undefined, authenticate: 'Api-Key', text: CREDENTIALS };

/** The throttled answer: the rate limit's body with the seconds of its Retry-After (at most the 6 s refill). */
function expectThrottled(answer: Answer): void {
  expect(answer.status).toBe(429);
  const seconds = Number(answer.retryAfter);
  expect(seconds).toBeGreaterThanOrEqual(1);
  expect(seconds).toBeLessThanOrEqual(6);
  expect(answer.text).toBe(`{"error":"Request was throttled. Expected available in ${seconds} second${seconds === 1 ? '' : 's'}."}`);
  expect(answer.authenticate).toBeUndefined();
}

describe('wrong API keys on /v1', () => {
  it('answers 10 new wrong keys 401, then 429 with Retry-After for a key the address has not used', async ({ freshApp }) => {
    expect((await send(freshApp.url, 'test-key')).status).toBe(200);
    for (let i = 0; i < 10; i++) expect(await send(freshApp.url, `guess-${i}`)).toEqual(unauthorized);
    expectThrottled(await send(freshApp.url, 'guess-10'));
    // A right key this address never used is not told apart from a wrong one while it waits...
    expectThrottled(await send(freshApp.url, 'dev-key'));
    // ...while the key it used before still works, and a wrong key it was told about is told again.
    expect((await send(freshApp.url, 'test-key')).status).toBe(200);
    expect(await send(freshApp.url, 'guess-3')).toEqual(unauthorized);
    // Another client address has its own allowance.
    expect(await send(freshApp.url, 'guess-11', '127.0.0.2')).toEqual(unauthorized);
    expect((await send(freshApp.url, 'dev-key', '127.0.0.2')).status).toBe(200);
  });

  it('never throttles a client that repeats one wrong key (a misconfigured app, a test of 401 handling)', async ({ freshApp }) => {
    for (let i = 0; i < 40; i++) expect(await send(freshApp.url, 'wrong-but-always-the-same')).toEqual(unauthorized);
    expect((await send(freshApp.url, 'test-key')).status).toBe(200);
  });

  it('logs the 429s in the request log like any answer', async ({ freshApp }) => {
    for (let i = 0; i < 11; i++) await send(freshApp.url, `logged-${i}`);
    const log = (await (await fetch(`${freshApp.url}/api/requests?status=429`)).json()) as { total: number; requests: { status: number; sender: null }[] };
    expect(log.total).toBe(1);
    expect(log.requests[0]).toMatchObject({ status: 429, sender: null });
  });
});
