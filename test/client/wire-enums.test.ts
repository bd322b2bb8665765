import { describe, expect, it } from 'vitest';
import { DELIVERY_STATUSES, FORCED_STATUSES, SOURCES, SUBSCRIPTION_STATUSES } from '../../client/pigeonhole-client.ts';
import * as server from '../../server/domain/entities.ts';

/**
 * The wire's enumerations are written once, with the records (server/storage/records.ts) and the
 * entities (server/domain/entities.ts); the wire's zod schemas take them from there, and the typed
 * client's lists (client/wire-types.ts, which the inbox and the MCP tools use) are generated from
 * the schemas. This checks the generated lists are the server's, in the same order (the inbox's
 * status filter shows them in it).
 */
describe('the enumerations of the wire', () => {
  it.for([
    ['SOURCES', SOURCES, server.SOURCES],
    ['DELIVERY_STATUSES', DELIVERY_STATUSES, server.DELIVERY_STATUSES],
    ['FORCED_STATUSES', FORCED_STATUSES, server.FORCED_STATUSES],
    ['SUBSCRIPTION_STATUSES', SUBSCRIPTION_STATUSES, server.SUBSCRIPTION_STATUSES],
  ] as const)('%s: the client says what the server says', ([, client, answered]) => {
    expect(client).toEqual(answered);
  });

  it('the statuses a capture can be forced to are every status but pending', () => {
    expect(FORCED_STATUSES).toEqual(DELIVERY_STATUSES.filter((status) => status !== 'pending'));
  });
});
