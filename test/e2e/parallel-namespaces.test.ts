import { describe, expect } from 'vitest';
import { PigeonholeClient, type Capture } from '../../client/pigeonhole-client.ts';
import { test as it } from '../support/fixtures.ts';
import { smtpClient } from '../support/smtp.ts';

const WORKERS = 8;
const TESTS_PER_WORKER = 25;

/**
 * Issue 20's "done when": eight workers run at once against one real server process, 25 tests
 * each, every test in its own namespace, sending through /v1 and SMTP and asserting an exact
 * count with expect, while some tests reset their own namespace and others expect none. What
 * each test sends is fixed by its worker and test number (no randomness); every capture a test
 * sees must be its own (no cross-talk).
 */
describe('parallel test suites, one namespace per test', () => {
  it('8 workers x 25 tests: every exact count holds, no test sees another test’s mail', async ({ serverProcess }) => {
    const dataDir = await serverProcess.tempDir('pigeonhole-parallel-');
    const server = await serverProcess.spawn({ dataDir });
    const failures: string[] = [];
    let assertions = 0;

    const worker = async (w: number) => {
      const ph = new PigeonholeClient({ baseUrl: server.url });
      const smtp = smtpClient(server.smtpPort);
      try {
        for (let t = 0; t < TESTS_PER_WORKER; t++) {
          const ns = `w${w}-t${t}`;
          const fail = (what: string) => failures.push(`${ns}: ${what}`);
          const viaApi = (w + t) % 3;
          const viaSmtp = (w * 7 + t) % 3;
          const resets = t % 5 === 2;
          const sendApi = async (n: number) => {
            for (let i = 0; i < n; i++) {
              const res = await ph.sendEmail({ apiKey: 'bulk-key', recipient: `user${i}+${ns}@example.com`, subject: `${ns} api ${i}`, body: `<p>${ns}</p>` });
              if (typeof res.id !== 'string') fail(`send ${i} answered ${JSON.stringify(res)}`);
            }
          };
          const sendSmtp = async (n: number) => {
            for (let i = 0; i < n; i++) {
              // Tagged in To, Cc or Bcc in turn; the untagged addresses are shared by every test.
              const tagged = `smtp${i}+${ns.toUpperCase()}@example.com`;
              const where = i % 3 === 0 ? { to: tagged } : i % 3 === 1 ? { to: 'shared@example.com', cc: tagged } : { to: 'shared@example.com', bcc: tagged };
              await smtp.sendMail({ from: 'app@example.com', ...where, subject: `${ns} smtp ${i}`, text: ns });
            }
          };
          const own = (messages: Capture[]) => {
            for (const m of messages) if (m.namespace !== ns || !m.subject.startsWith(`${ns} `)) fail(`saw ${m.id} "${m.subject}" of namespace ${m.namespace}`);
          };

          if (resets) {
            // Mail sent before the reset goes with it; only what comes after counts.
            await sendApi(1);
            await sendSmtp(1);
            const reset = await ph.reset({ namespace: ns });
            if (reset.removed.messages !== 2 || reset.namespace !== ns) fail(`reset answered ${JSON.stringify(reset)}`);
          }
          const expected = viaApi + viaSmtp;
          if (expected === 0) {
            await ph.expectNone({ namespace: ns, within: 200 }).catch((error: Error) => fail(`expectNone: ${error.message}`));
          } else if (t % 2 === 0) {
            // Sent first, then counted.
            await sendApi(viaApi);
            await sendSmtp(viaSmtp);
            const found = await ph.expect({ namespace: ns, count: expected, within: 10_000 });
            if (found.count !== expected || found.messages.length !== expected) fail(`expected ${expected}, got ${found.count}`);
            own(found.messages);
          } else {
            // Counted while it arrives.
            const counting = ph.expect({ namespace: ns, count: expected, within: 10_000, settle: 100 });
            await sendApi(viaApi);
            await sendSmtp(viaSmtp);
            const found = await counting.catch((error: Error) => {
              fail(`expect while sending: ${error.message}`);
              return null;
            });
            if (found) own(found.messages);
          }
          // One more than expected is a 409 at once.
          await sendApi(1);
          const extra = await ph.expect({ namespace: ns, count: expected, within: 10_000 }).then(
            () => 'answered 200',
            (error: Error & { status?: number; count?: number }) => (error.status === 409 && error.count === expected + 1 ? null : error.message),
          );
          if (extra !== null) fail(`one more than expected: ${extra}`);
          assertions++;
        }
      } finally {
        smtp.close();
      }
    };

    await Promise.all(Array.from({ length: WORKERS }, (_, w) => worker(w)));
    expect(failures).toEqual([]);
    expect(assertions).toBe(WORKERS * TESTS_PER_WORKER);
    // Every test's mail is still there, in its own namespace, and nothing else was counted.
    const everything = await new PigeonholeClient({ baseUrl: server.url }).list({ limit: 1 });
    let sent = 0;
    for (let w = 0; w < WORKERS; w++) for (let t = 0; t < TESTS_PER_WORKER; t++) sent += ((w + t) % 3) + ((w * 7 + t) % 3) + 1;
    expect(everything.total).toBe(sent);
    // A shared CI machine may be slow: the assertions are about counts, never about time.
  }, 180_000);
});
