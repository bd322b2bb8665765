import { test as base } from '@playwright/test';
import { type RunningPigeonhole, startPigeonhole } from 'pigeonhole';
import type { Capture, ExpectResult, MessageFilter } from 'pigeonhole/client';
import { type App, startApp } from './app';

/** One test's own inbox: a namespace nobody else sends to, removed after the test. */
export interface Inbox {
  readonly namespace: string;
  /** `ada+<namespace>@example.com`: mail to it lands in this test's namespace. */
  address(user: string, domain?: string): string;
  /** The newest capture of this namespace matching the filter, waiting for it if need be. */
  wait(filter?: MessageFilter & { timeout?: number }): Promise<Capture>;
  /** Exactly `count` captures of this namespace match (waiting up to 5 s); throws TooManyMessages or TooFewMessages otherwise. */
  expect(count: number, filter?: MessageFilter): Promise<ExpectResult>;
}

export const test = base.extend<{ inbox: Inbox }, { pigeonhole: RunningPigeonhole; app: App }>({
  // One sandbox per worker (free ports, a temporary data directory), stopped when the worker ends.
  pigeonhole: [
    // biome-ignore lint/correctness/noEmptyPattern: Playwright reads a fixture's dependencies from its first parameter
    async ({}, use) => {
      const pigeonhole = await startPigeonhole();
      await use(pigeonhole);
      await pigeonhole.stop();
    },
    { scope: 'worker' },
  ],
  // Your application, pointed at the sandbox: here a tiny one (tests/app.ts) that this worker serves.
  app: [
    async ({ pigeonhole }, use) => {
      const app = await startApp({ emailApi: pigeonhole.url });
      await use(app);
      await app.close();
    },
    { scope: 'worker' },
  ],
  // A namespace per test: tests that run at the same time never see each other's mail.
  inbox: async ({ pigeonhole }, use) => {
    const namespace = crypto.randomUUID().slice(0, 8);
    await use({
      namespace,
      address: (user, domain = 'example.com') => `${user}+${namespace}@${domain}`,
      wait: (filter = {}) => pigeonhole.client.waitForMessage({ timeout: 5000, ...filter, namespace }),
      expect: (count, filter = {}) => pigeonhole.client.expect({ within: 5000, ...filter, namespace, count }),
    });
    await pigeonhole.client.reset({ namespace });
  },
});

export { expect } from '@playwright/test';
