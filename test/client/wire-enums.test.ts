import { describe, expect, it } from 'vitest';
import * as client from '../../client/pigeonhole-client.ts';
import * as domain from '../../server/domain/entities.ts';

/**
 * The wire's enumerations are written twice: with the records (server/storage/records.ts, which
 * the server validates and documents with) and in the typed client (client/pigeonhole-client.ts,
 * one file with no dependencies, which the inbox and the MCP tools use). The two must be the same
 * lists in the same order (the inbox's status filter shows them in it).
 */
describe('the enumerations of the wire', () => {
  it.for(['SOURCES', 'DELIVERY_STATUSES', 'FORCED_STATUSES', 'SUBSCRIPTION_STATUSES'] as const)('%s: the client says what the server says', (name) => {
    expect(client[name]).toEqual(domain[name]);
  });

  it('the statuses a capture can be forced to are every status but pending', () => {
    expect(client.FORCED_STATUSES).toEqual(client.DELIVERY_STATUSES.filter((status) => status !== 'pending'));
  });
});
