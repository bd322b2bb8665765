import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { fileURLToPath } from 'node:url';
import { describe, expect } from 'vitest';
import { PigeonholeClient, PigeonholeError } from '../../client/pigeonhole-client.ts';
import { test as it } from '../support/fixtures.ts';

/**
 * How another project's tests use Pigeonhole: reset before each test, let the application send
 * (here: the client's sendEmail stands in for the application), then wait for the capture and
 * use its link or code. Start Pigeonhole first (`npm start`) and point the client at it.
 */
let pigeonhole: PigeonholeClient;

it.beforeEach(async ({ app }) => {
  pigeonhole = new PigeonholeClient({ baseUrl: app.url });
  await pigeonhole.reset();
});

describe('the typed client, as another project would use it', () => {
  it('sends through /v1 and waits for the capture, with its link and code', async () => {
    const waiting = pigeonhole.waitForMessage({ recipient: 'new-user@example.com', subject: 'Confirm', timeout: 5000 });
    const { id } = await pigeonhole.sendEmail({
      apiKey: 'test-key',
      recipient: 'new-user@example.com',
      subject: 'Confirm your account',
      body: '<p>Your confirmation code is <b>836214</b>.</p><p><a href="https://app.example/confirm?t=abc">Confirm</a></p>',
    });
    const mail = await waiting;
    expect(mail.id).toBe(id);
    expect(mail.codes).toEqual(['836214']);
    expect(mail.links.find((l) => l.text === 'Confirm')?.href).toBe('https://app.example/confirm?t=abc');
    expect(await pigeonhole.extract(id)).toEqual({ links: mail.links, codes: mail.codes });
    expect((await pigeonhole.get(id)).subject).toBe('Confirm your account');
  });

  it('reports a timeout as PigeonholeError 408, and latest as null', async () => {
    const error = await pigeonhole.waitForMessage({ recipient: 'nobody@example.com', timeout: 50 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(PigeonholeError);
    expect(error).toMatchObject({ status: 408, body: { detail: 'No message matching the filters arrived within 50 ms.' } });
    expect(await pigeonhole.latest({ recipient: 'nobody@example.com' })).toBeNull();
  });

  it('makes the API fail on purpose and shows what the application sent', async () => {
    await pigeonhole.faults.add({ id: 'outage', target: 'http', match: { route: '/v1/email/send/' }, action: { type: 'status', status: 503 }, times: 1 });
    const failed = await pigeonhole
      .sendEmail({ apiKey: 'test-key', recipient: 'retry@example.com', subject: 'Retry', body: 'b' })
      .catch((e: PigeonholeError) => e);
    expect(failed).toMatchObject({ status: 503, body: { detail: 'Service temporarily unavailable, try again later.' } });
    await pigeonhole.sendEmail({ apiKey: 'test-key', recipient: 'retry@example.com', subject: 'Retry', body: 'b' });
    const log = await pigeonhole.requests.list({ path: '/v1/email/send/' });
    expect(log.requests.map((r) => r.status)).toEqual([200, 503]);
    expect((await pigeonhole.faults.list()).find((f) => f.id === 'outage')).toMatchObject({ fired: 1, remaining: 0 });
    await pigeonhole.faults.remove('outage');
    await pigeonhole.requests.clear();
    expect((await pigeonhole.requests.list()).total).toBe(0);
  });

  it('forces outcomes, blocks and unblocks, and searches', async () => {
    const { id } = await pigeonhole.sendEmail({ apiKey: 'test-key', recipient: 'bouncy@example.com', subject: 'Hi', body: 'b' });
    expect((await pigeonhole.setStatus(id, 'bounced')).status).toBe('bounced');
    expect(await pigeonhole.blocks('acme')).toContainEqual(expect.objectContaining({ email: 'bouncy@example.com', reason: 'bounce' }));
    expect((await pigeonhole.sendEmail({ apiKey: 'test-key', recipient: 'bouncy@example.com', subject: 'Again', body: 'b' })).error).toBe(
      'Recipient is blocked',
    );
    await pigeonhole.unblock('acme', 'bouncy@example.com');
    await pigeonhole.block('acme', 'other@example.com');
    const page = await pigeonhole.search({ recipient: 'bouncy@example.com', limit: 1 });
    expect(page).toMatchObject({ total: 2, limit: 1, messages: [{ subject: 'Again', status: 'failed' }] });
    expect((await pigeonhole.reset({ team: 'acme', restoreFixtures: true })).removed.messages).toBe(2);
  });
});

describe('the package entry another project imports', () => {
  it('resolves pigeonhole/client to the compiled client with its types', async () => {
    const root = fileURLToPath(new URL('../../', import.meta.url));
    const run = promisify(execFile);
    await run(process.execPath, [`${root}node_modules/typescript/bin/tsc`, '-p', 'tsconfig.client.json'], { cwd: root });
    const script = "import('pigeonhole/client').then((m) => console.log(typeof m.PigeonholeClient, typeof m.PigeonholeError))";
    const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: root });
    expect(stdout.trim()).toBe('function function');
    const { readFile } = await import('node:fs/promises');
    expect(await readFile(`${root}dist/client/pigeonhole-client.d.ts`, 'utf8')).toContain('waitForMessage(filter?: MessageFilter');
  });
});
