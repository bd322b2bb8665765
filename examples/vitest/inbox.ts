import { type Capture, type ExpectResult, type MessageFilter, PigeonholeClient } from 'pigeonhole/client';
import { test as base, inject } from 'vitest';

/** One test's own inbox: a namespace nobody else sends to, removed after the test. */
export interface Inbox {
  readonly namespace: string;
  /** `ada+<namespace>@example.com`: mail to it lands in this test's namespace. */
  address(user: string, domain?: string): string;
  /** The newest capture of this namespace matching the filter, waiting for it if need be. */
  wait(filter?: MessageFilter & { timeout?: number }): Promise<Capture>;
  /** Exactly `count` captures of this namespace match (waiting up to 5 s for them); throws TooManyMessages or TooFewMessages otherwise. */
  expect(count: number, filter?: MessageFilter): Promise<ExpectResult>;
  /** No capture of this namespace matches, and none arrives within `within` ms. */
  expectNone(filter?: MessageFilter & { within?: number }): Promise<void>;
  /** The sandbox's typed client (for checks, faults, the clock, ...). */
  readonly client: PigeonholeClient;
}

/** `test` with an `inbox` fixture; the tests of every file and worker share one sandbox safely. */
export const test = base.extend<{ inbox: Inbox }>({
  // biome-ignore lint/correctness/noEmptyPattern: Vitest reads a fixture's dependencies from its first parameter
  inbox: async ({}, use) => {
    const client = new PigeonholeClient({ baseUrl: inject('pigeonholeUrl') });
    const namespace = crypto.randomUUID().slice(0, 8);
    await use({
      namespace,
      client,
      address: (user, domain = 'example.com') => `${user}+${namespace}@${domain}`,
      wait: (filter = {}) => client.waitForMessage({ timeout: 5000, ...filter, namespace }),
      expect: (count, filter = {}) => client.expect({ within: 5000, ...filter, namespace, count }),
      expectNone: (filter = {}) => client.expectNone({ within: 500, ...filter, namespace }),
    });
    // After the test (like afterEach): this namespace's captures go, every other test's stay.
    await client.reset({ namespace });
  },
});
