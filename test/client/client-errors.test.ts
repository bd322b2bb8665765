import { describe, expect } from 'vitest';
import { EXPECT_NONE_WITHIN_MS, PigeonholeClient, PigeonholeError, PigeonholeUnreachable } from '../../client/pigeonhole-client.ts';
import { test as it } from '../support/fixtures.ts';
import { freePort } from '../support/ports.ts';

/**
 * Issue 27, item 5: the typed client's errors name the URL asked and what was answered, and say
 * what to change when the base URL is wrong; "expect none" has one default everywhere.
 */

describe('errors that name the URL', () => {
  it('a base URL ending in /v1 or /api: the 404, the URL, and the hint to drop it', async ({ app }) => {
    const v1 = new PigeonholeClient({ baseUrl: `${app.url}/v1` });
    const error = await v1.waitForMessage({ timeout: 0 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PigeonholeError);
    expect((error as PigeonholeError).status).toBe(404);
    expect((error as PigeonholeError).message).toBe(
      `Pigeonhole answered 404 to GET ${app.url}/v1/api/messages/wait?timeout=0: {"detail":"Not found."}. The base URL ${app.url}/v1 ends in /v1: give the sandbox's root instead (${app.url}), without /v1.`,
    );
    const api = new PigeonholeClient({ baseUrl: `${app.url}/api/` });
    const send = await api.sendEmail({ apiKey: 'test-key', recipient: 'a@example.com', subject: 's', body: 'b' }).then(
      () => null,
      (e: PigeonholeError) => e,
    );
    expect(send?.message).toBe(
      `Pigeonhole answered 404 to POST ${app.url}/api/v1/email/send/: {"detail":"Not found."}. The base URL ${app.url}/api ends in /api: give the sandbox's root instead (${app.url}), without /api.`,
    );
  });

  it('a 404 of a right base URL names the URL and gives no hint', async ({ app }) => {
    const error = (await new PigeonholeClient({ baseUrl: app.url }).get('nope').catch((e: unknown) => e)) as PigeonholeError;
    expect(error.message).toBe(`Pigeonhole answered 404 to GET ${app.url}/api/messages/nope: {"detail":"Not found."}`);
    expect(error.request).toEqual({ method: 'GET', url: `${app.url}/api/messages/nope` });
  });

  it('no answer at all: PigeonholeUnreachable with the URL and the system cause; an abort stays an AbortError', async ({ app }) => {
    const port = await freePort();
    const error = await new PigeonholeClient({ baseUrl: `http://127.0.0.1:${port}` }).list({ limit: 1 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PigeonholeUnreachable);
    expect((error as Error).message).toBe(
      `Cannot reach Pigeonhole at http://127.0.0.1:${port}/api/messages?limit=1 (GET): ECONNREFUSED. Is the sandbox running, and is this its base URL (http://host:port, the port of its HTTP server)?`,
    );
    expect(((error as Error).cause as { code: string }).code).toBe('ECONNREFUSED');
    const aborted = await new PigeonholeClient({ baseUrl: app.url })
      .waitForMessage({ timeout: 5000, signal: AbortSignal.abort() })
      .catch((e: unknown) => e as Error);
    expect((aborted as Error).name).toBe('AbortError');
  });
});

describe('"expect none" waits 1 s unless told otherwise', () => {
  it('expectNone sends within=1000; a within given is kept', async ({ app }) => {
    const asked: string[] = [];
    const recording: typeof fetch = (input, init) => {
      asked.push(String(input));
      return fetch(input, init);
    };
    const client = new PigeonholeClient({ baseUrl: app.url, fetch: recording });
    await client.expectNone({ recipient: 'never@example.com', within: 0 });
    expect(new URL(asked[0]!).searchParams.get('within')).toBe('0');
    expect(EXPECT_NONE_WITHIN_MS).toBe(1000);
    asked.length = 0;
    await client.expectNone({ recipient: 'never@example.com' });
    expect(new URL(asked[0]!).searchParams.get('within')).toBe('1000');
  });

  it('the API itself: count=0 without within holds 1 s, not the 10 s of a count of 1 or more', async ({ app }) => {
    const started = performance.now();
    const res = await fetch(`${app.url}/api/messages/expect?recipient=never@example.com&count=0`);
    const held = performance.now() - started;
    expect(res.status).toBe(200);
    // A passing "none" waits its whole window: at least the 1 s default, and nowhere near 10 s.
    expect(held).toBeGreaterThanOrEqual(990);
    expect(held).toBeLessThan(8000);
  });
});

it('an error of a fetch given in the options passes as it is (the inbox has its own for no answer)', async ({ app }) => {
  class Offline extends Error {}
  const client = new PigeonholeClient({
    baseUrl: app.url,
    fetch: async () => {
      throw new Offline('offline');
    },
  });
  await expect(client.list()).rejects.toBeInstanceOf(Offline);
});
