import { PigeonholeClient } from 'pigeonhole/client';

const client = new PigeonholeClient({ baseUrl: process.env.PIGEONHOLE_URL });

/**
 * A fresh inbox for one test: a namespace nobody else sends to. Create one in beforeEach and
 * call `clear()` in afterEach; tests in other files and workers never see its mail.
 */
export function newInbox() {
  const namespace = crypto.randomUUID().slice(0, 8);
  return {
    namespace,
    client,
    /** `ada+<namespace>@example.com`: mail to it lands in this test's namespace. */
    address: (user, domain = 'example.com') => `${user}+${namespace}@${domain}`,
    /** The newest capture of this namespace matching the filter, waiting for it if need be. */
    wait: (filter = {}) => client.waitForMessage({ timeout: 5000, ...filter, namespace }),
    /** Exactly `count` captures of this namespace match (waiting up to 5 s); throws TooManyMessages or TooFewMessages otherwise. */
    expect: (count, filter = {}) => client.expect({ within: 5000, ...filter, namespace, count }),
    /** No capture of this namespace matches, and none arrives within `within` ms. */
    expectNone: (filter = {}) => client.expectNone({ within: 500, ...filter, namespace }),
    /** Removes this namespace's captures (and nothing else). */
    clear: () => client.reset({ namespace }),
  };
}
