import { describe, expect } from 'vitest';
import { addressTag } from '../../../server/storage/namespace.ts';
import type { RecipientQuery } from '../../../server/storage/indexes/recipient-store.ts';
import type { RecipientRecord } from '../../../server/storage/records.ts';
import type { OpenStore } from '../../../server/storage/open-store.ts';
import { test as it } from '../../support/fixtures.ts';

it.override('storeOptions', { segmentSize: 64 });

function recipient(seq: number, over: Partial<RecipientRecord> = {}): RecipientRecord {
  const at = new Date(Date.UTC(2030, 0, 1, 0, 0, seq)).toISOString();
  return {
    seq,
    sqid: `s${seq}`,
    team: seq % 4 === 0 ? 'beta' : 'acme',
    email: `Person${seq}@Example.com`,
    firstName: `First${seq % 5}`,
    lastName: '',
    flags: seq % 3 === 0 ? ['vip'] : [],
    hasBeenSentEmail: true,
    createdAt: at,
    updatedAt: at,
    ...over,
  };
}

function generator(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    return state / 4294967296;
  };
}

/** The old semantics, on whole records: every match newest first, a page of them and the count. */
function expected(records: RecipientRecord[], query: RecipientQuery, offset: number, limit: number) {
  const matches = records
    .filter(
      (r) =>
        (query.team === undefined || r.team === query.team) &&
        (query.email === undefined || r.email.trim().toLowerCase() === query.email.trim().toLowerCase()) &&
        (query.flag === undefined || r.flags.includes(query.flag)) &&
        (query.words ?? []).every((w) => [r.email, r.firstName, r.lastName, ...r.flags].join('\n').toLowerCase().includes(w)),
    )
    .sort((a, b) => b.seq - a.seq);
  return { total: matches.length, items: matches.slice(offset, offset + limit) };
}

/** A lowercase JSON copy: what the store gives must equal the model's records field by field. */
const plain = (page: { total: number; items: RecipientRecord[] }) => JSON.parse(JSON.stringify(page)) as unknown;

describe('the recipient store (a compact index, records read from their segments)', () => {
  it('reads records no longer kept from their segment, and a change to one read anew is written and found', async ({ stores }) => {
    // Room for about two records: reading the others evicts them.
    const store = await stores.open({ recipients: { cacheBytes: 400 } });
    const dir = store.dataDir;
    for (let seq = 1; seq <= 20; seq++) store.recipients.insert(recipient(seq));
    await store.flush();
    for (let seq = 1; seq <= 20; seq++) expect(store.recipients.get(seq)?.email).toBe(`Person${seq}@Example.com`);

    const first = store.recipients.find('acme', ' person1@EXAMPLE.com ')!;
    expect(first.seq).toBe(1);
    first.flags.push('late');
    first.lastName = 'Lovelace';
    store.recipients.touch(first);
    // Not written yet: the object changed is the one every lookup gives, however many are read meanwhile.
    for (let seq = 2; seq <= 20; seq++) store.recipients.get(seq);
    expect(store.recipients.find('acme', 'person1@example.com')).toBe(first);
    await store.flush();
    for (let seq = 2; seq <= 20; seq++) store.recipients.get(seq);
    const again = store.recipients.find('acme', 'PERSON1@example.com')!;
    expect(again).not.toBe(first);
    expect(again).toMatchObject({ lastName: 'Lovelace', flags: ['late'] });
    expect(store.recipients.list({ flag: 'late' }, 0, 10).items.map((r) => r.seq)).toEqual([1]);
    expect(store.recipients.list({ words: ['lovelace'] }, 0, 10).items.map((r) => r.seq)).toEqual([1]);

    // Changed again after its eviction: the second change is written over the first.
    for (let seq = 2; seq <= 20; seq++) store.recipients.get(seq);
    const third = store.recipients.get(1)!;
    third.firstName = 'Ada';
    store.recipients.touch(third);
    await store.flush();
    await store.close();
    const reopened = await stores.open({ dataDir: dir });
    expect(reopened.recipients.find('acme', 'person1@example.com')).toMatchObject({ firstName: 'Ada', lastName: 'Lovelace', flags: ['late'] });
    expect(reopened.recipients.size).toBe(20);
  });

  it('builds the same index again at start-up: lookups, filters, search and pruning answer as before the restart', async ({ stores }) => {
    const store = await stores.open();
    const dir = store.dataDir;
    for (let seq = 1; seq <= 150; seq++) store.recipients.insert(recipient(seq));
    for (let seq = 10; seq <= 150; seq += 10) store.recipients.remove(seq);
    const changed = store.recipients.get(33)!;
    changed.flags.push('new');
    changed.updatedAt = new Date(Date.UTC(2031, 0, 1)).toISOString();
    store.recipients.touch(changed);
    await store.flush();
    const queries: RecipientQuery[] = [
      {},
      { team: 'beta' },
      { team: 'acme', flag: 'vip' },
      { team: 'acme', email: 'PERSON33@example.com' },
      { words: ['first2', 'person1'] },
      { flag: 'new' },
    ];
    const answers = (s: OpenStore) => queries.map((query) => plain(s.recipients.list(query, 3, 20)));
    const before = answers(store);
    await store.close();

    const reopened = await stores.open({ dataDir: dir });
    expect(reopened.recipients.size).toBe(135);
    expect(answers(reopened)).toEqual(before);
    expect(reopened.recipients.find('beta', 'person8@example.com')?.seq).toBe(8);
    expect(reopened.recipients.find('acme', 'person8@example.com')).toBeUndefined();
    // Unchanged since a point between the first records' times and the changed one's: all but 33 and the one kept (in its team only).
    const pruned = reopened.recipients.removeUnchangedSince(Date.UTC(2030, 0, 2), [
      { team: 'acme', email: ' PERSON1@example.com' },
      { team: 'beta', email: 'person1@example.com' },
    ]);
    expect(pruned).toBe(133);
    expect(reopened.recipients.list({}, 0, 10).items.map((r) => r.seq)).toEqual([33, 1]);
  });

  it('lists, finds and removes as the whole records in memory did, through forced hash collisions and a cache of almost nothing', async ({ stores }) => {
    const store = await stores.open({ recipients: { cacheBytes: 150, hash: (key) => key.length % 4 } });
    const dir = store.dataDir;
    const model = new Map<number, RecipientRecord>();
    const random = generator(7);
    const pick = () => {
      const seqs = [...model.keys()];
      return seqs[Math.floor(random() * seqs.length)];
    };
    let seq = 0;
    for (let round = 0; round < 600; round++) {
      const roll = random();
      const some = pick();
      if (some !== undefined && roll < 0.2) {
        store.recipients.remove(some);
        model.delete(some);
      } else if (some !== undefined && roll < 0.45) {
        const record = store.recipients.get(some)!;
        if (random() < 0.5) record.flags.push(`f${round % 3}`);
        else record.lastName = `Last ${round % 4}`;
        store.recipients.touch(record);
        model.set(some, structuredClone(record));
      } else {
        const record = recipient(++seq, { email: `p.${seq}${seq % 7 === 0 ? '+NS1' : ''}@Example.com` });
        store.recipients.insert(structuredClone(record));
        model.set(seq, record);
      }
      if (round % 50 === 0) await store.flush();
      if (round % 40 === 0) {
        const records = [...model.values()];
        const target = records[Math.floor(random() * records.length)];
        const queries: RecipientQuery[] = [
          {},
          { team: 'acme' },
          { team: 'beta', flag: 'vip' },
          { flag: 'f1' },
          { words: ['last', '2'] },
          { team: 'acme', words: ['+ns1@'] },
          ...(target
            ? [
                { team: target.team, email: target.email.toUpperCase() },
                { team: target.team === 'acme' ? 'beta' : 'acme', email: target.email },
              ]
            : []),
        ];
        for (const query of queries) expect(plain(store.recipients.list(query, 2, 5))).toEqual(plain(expected(records, query, 2, 5)));
        for (const record of records) expect(store.recipients.find(record.team, record.email.toLowerCase())?.seq).toBe(record.seq);
      }
    }
    await store.flush();
    expect(store.recipients.removeWhere({ team: 'beta', namespace: 'ns1' })).toBe(
      [...model.values()].filter((r) => r.team === 'beta' && addressTag(r.email) === 'ns1').length,
    );
    expect(store.recipients.removeWhere({ team: 'acme' })).toBe([...model.values()].filter((r) => r.team === 'acme').length);
    await store.flush();
    await store.close();
    const reopened = await stores.open({ dataDir: dir, recipients: { cacheBytes: 150, hash: (key) => key.length % 4 } });
    const left = [...model.values()].filter((r) => r.team === 'beta' && addressTag(r.email) !== 'ns1');
    expect(plain(reopened.recipients.list({}, 0, 1000))).toEqual(plain(expected(left, {}, 0, 1000)));
    // Pruning keeps the one named, found among the many of the same hash.
    const kept = left[Math.floor(left.length / 2)]!;
    expect(reopened.recipients.removeUnchangedSince(Date.UTC(2100, 0, 1), [{ team: 'beta', email: kept.email.toUpperCase() }])).toBe(left.length - 1);
    expect(reopened.recipients.list({}, 0, 10).items.map((r) => r.seq)).toEqual([kept.seq]);
  });

  it('finds the newest of two records with one key (files edited by hand), as a Map of every record did', async ({ stores }) => {
    const store = await stores.open({ recipients: { hash: () => 1 } });
    store.recipients.insert(recipient(1, { team: 'acme', email: 'twice@example.com', firstName: 'Older' }));
    store.recipients.insert(recipient(2, { team: 'acme', email: 'other@example.com' }));
    store.recipients.insert(recipient(3, { team: 'acme', email: 'TWICE@example.com', firstName: 'Newer' }));
    expect(store.recipients.find('acme', 'twice@example.com')?.firstName).toBe('Newer');
    store.recipients.remove(3);
    expect(store.recipients.find('acme', 'twice@example.com')?.firstName).toBe('Older');
  });

  it("removes a namespace's recipients by the tag of their address, whatever its case, and no other", async ({ stores }) => {
    const store = await stores.open();
    const emails = [
      'Ada+T7@example.com',
      'b+t7.x@example.com',
      'c@example.com',
      'd+t7@example.com',
      'e+t77@example.com',
      'x+t7@a+t7@example.com',
      'f+\u212a@example.com',
    ];
    for (const [at, email] of emails.entries()) store.recipients.insert(recipient(at + 1, { email, team: 'acme' }));
    expect(store.recipients.removeWhere({ namespace: 't7' })).toBe(2);
    // The Kelvin sign lowercases to "k": the search text holds "+k@", but the address has no tag.
    expect(store.recipients.removeWhere({ namespace: 'k' })).toBe(0);
    expect(
      store.recipients
        .list({}, 0, 10)
        .items.map((r) => r.email)
        .reverse(),
    ).toEqual(['b+t7.x@example.com', 'c@example.com', 'e+t77@example.com', 'x+t7@a+t7@example.com', 'f+\u212a@example.com']);
  });
});
