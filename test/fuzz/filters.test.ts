import fc from 'fast-check';
import { describe, expect } from 'vitest';
import type { MessageFilter } from '../../server/domain/messages/message-filter.ts';
import { api, read } from '../support/app.ts';
import { test as it } from '../support/fixtures.ts';
import { announceSeed, fuzzParameters, timedAsync } from './fuzz.ts';

/**
 * The message filters (server/domain/messages/message-filter.ts) behind the inbox search, the
 * sandbox API's list, latest and wait-for: whatever a filter holds, it never throws and answers
 * within the budget, and a capture is found by any part of its subject.
 */
announceSeed('test/fuzz/filters.test.ts');

/** Text with the characters that matter to the search index: its own field marks (\u0001, \u0002), case pairs, spaces, '@'. */
const text = fc.string({
  unit: fc.oneof(fc.constantFrom('\u0001', '\u0002', ' ', '@', '.', 'a', 'A', 'İ', 'ß', 'é', '*', '%', '\\'), fc.string({ minLength: 1, maxLength: 1 })),
  maxLength: 24,
});
/** Inputs the properties found: a capture id that decodes past 2^53 (FC_SEED=1, a 500 from every route taking an id). */
const FILTER_EXAMPLES: [MessageFilter][] = [[{ afterId: 'fDnameAcal' }]];

const filter: fc.Arbitrary<MessageFilter> = fc.record(
  {
    recipient: text,
    q: text,
    subject: text,
    sender: text,
    team: text,
    source: fc.constantFrom('api', 'smtp', 'flow'),
    status: fc.constantFrom('pending', 'delivered', 'bounced', 'complained', 'failed'),
    blocked: fc.boolean(),
    read: fc.boolean(),
    since: fc.date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2100-01-01T00:00:00Z'), noInvalidDate: true }),
    afterId: text,
  },
  { requiredKeys: [] },
);

/** Inputs the properties found. */
const SUBJECT_EXAMPLES: [string, number, number][] = [
  // FC_SEED=19, run 15: the search index's own field mark in a subject ended the subject there.
  ['\u0002Q', 1, 0],
];

describe('message filters', () => {
  it('never throw and answer within the budget, whatever they hold', async ({ app, v1 }) => {
    for (const subject of ['Welcome', 'Your code is 123456', 'Grüße \u0002 marks \u0001 inside']) {
      expect((await v1.post('/v1/email/send/', { recipient: 'fuzz@example.com', subject, body: '<p>x</p>' })).status).toBe(200);
    }
    await fc.assert(
      fc.asyncProperty(filter, async (f) => {
        const page = await timedAsync(`filter ${JSON.stringify(f)}`, () => app.sandbox.messages.page(f, 0, 20));
        expect(page.items.length).toBeLessThanOrEqual(page.total);
      }),
      fuzzParameters(300, FILTER_EXAMPLES),
    );
  });

  it('take an id the fuzz found as no capture, on every route that reads one', async ({ app, v1 }) => {
    const answers = [
      await read(await fetch(`${app.url}/api/messages/fDnameAcal`)),
      await read(await fetch(`${app.url}/api/messages?after=fDnameAcal`)),
      await read(await v1.get('/v1/email/detail/fDnameAcal/')),
    ];
    expect(answers.map((r) => [r.status, r.text])).toEqual([
      [404, '{"detail":"Not found."}'],
      [400, '{"detail":"after must be a message id (\\"fDnameAcal\\" is not one)."}'],
      [404, '{"detail":"Not found."}'],
    ]);
  });

  it('find a capture by any part of its subject', async ({ app }) => {
    // The sender without a daily limit: one send per run.
    const v1 = api(app.url, 'bulk-key');
    await fc.assert(
      fc.asyncProperty(
        text.filter((s) => s.trim() !== ''),
        fc.nat(),
        fc.nat(),
        async (subject, a, b) => {
          const sent = await read(await v1.post('/v1/email/send/', { recipient: 'subject@example.com', subject, body: '<p>x</p>' }));
          expect(sent.status).toBe(200);
          const record = (await app.sandbox.messages.get((sent.body as { id: string }).id))!;
          const stored = record.subject;
          if (stored === '') return;
          const from = a % stored.length;
          const part = stored.slice(from, from + 1 + (b % (stored.length - from)));
          const page = await timedAsync(`subject ${JSON.stringify(part)}`, () => app.sandbox.messages.page({ subject: part }, 0, 1_000));
          expect(
            page.items.map((m) => m.id),
            `${JSON.stringify(part)} of ${JSON.stringify(stored)}`,
          ).toContain(record.id);
          expect(app.sandbox.messages.matcher({ subject: part })(record)).toBe(true);
        },
      ),
      fuzzParameters(100, SUBJECT_EXAMPLES),
    );
  });
});
