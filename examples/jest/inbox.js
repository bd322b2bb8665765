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
    /** Removes this namespace's captures (and nothing else). */
    clear: () => client.reset({ namespace }),
  };
}
