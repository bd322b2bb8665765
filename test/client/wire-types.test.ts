import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { z } from 'zod';
import type { FaultRuleInput } from '../../client/pigeonhole-client.ts';
import { WIRE_TYPES_FILE, wireTypesSource } from '../../scripts/generate-wire-types.ts';
import type { faultRuleSchema } from '../../server/domain/patterns/fault-rule.ts';

type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;

/**
 * The typed client's wire types are generated from the zod schemas (server/http/openapi/schemas.ts)
 * into a checked-in file; this keeps the file what the schemas say.
 */
describe('the generated wire types', () => {
  it(`${WIRE_TYPES_FILE} is what \`npm run generate\` writes from the schemas`, () => {
    const checkedIn = readFileSync(new URL(`../../${WIRE_TYPES_FILE}`, import.meta.url), 'utf8');
    expect(checkedIn === wireTypesSource(), `${WIRE_TYPES_FILE} is stale: run \`npm run generate\` and commit it`).toBe(true);
  });

  it('a fault rule the client sends is what POST /api/faults validates (the domain schema)', () => {
    const same: Same<FaultRuleInput, z.input<typeof faultRuleSchema>> = true;
    expect(same).toBe(true);
  });
});
