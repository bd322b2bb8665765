import { describe, expect, it } from 'vitest';
import { MessageIndex, searchText } from '../../server/storage/message-index.ts';
import type { MessageRecord } from '../../server/storage/records.ts';

function record(seq: number, over: Partial<MessageRecord> = {}): MessageRecord {
  const at = new Date(Date.UTC(2030, 0, 1, 0, 0, seq)).toISOString();
  return {
    seq,
    id: `id${seq}`,
    source: 'api',
    team: 'acme',
    sender: 'acme-main',
    from: 'hello@acme.example',
    recipient: `User${seq}@Example.com`,
    to: [`User${seq}@Example.com`],
    cc: [],
    bcc: [],
    subject: `Subject ${seq}`,
    firstName: null,
    lastName: null,
    flags: [],
    usedTemplate: false,
    redirected: false,
    blocked: false,
    status: 'delivered',
    deliverAt: null,
    outcome: 'delivered',
    sesId: 'x',
    encrypted: false,
    content: {},
    attachments: [],
    snippet: `Body of ${seq}`,
    flow: null,
    read: false,
    createdAt: at,
    updatedAt: at,
    ...over,
  };
}

const live = (index: MessageIndex) => {
  const seqs: number[] = [];
  index.scanNewestFirst(
    () => true,
    (slot) => void seqs.push(index.seq(slot)),
  );
  return seqs;
};

describe('the compact message index', () => {
  it('keeps what lists and filters read, and the search text lowercased with marked addresses', () => {
    const index = new MessageIndex();
    index.add(record(1, { cc: ['Boss@Example.com'], status: 'pending', deliverAt: '2030-01-01T01:00:00Z' }), 3);
    const slot = index.slotOf(1);
    expect([index.source(slot), index.status(slot), index.team(slot), index.sender(slot), index.pack(slot), index.read(slot)]).toEqual([
      'api',
      'pending',
      'acme',
      'acme-main',
      3,
      false,
    ]);
    expect(index.text(slot)).toBe(searchText(record(1, { cc: ['Boss@Example.com'] })));
    expect(index.text(slot)).toContain('\u0001boss@example.com\u0001');
    expect(index.text(slot).startsWith('\u0001user1@example.com\u0001')).toBe(true);
    expect(index.pendingDeliveries()).toEqual([[1, Date.parse('2030-01-01T01:00:00Z')]]);
    index.setStatus(1, 'bounced');
    index.setRead(1, true);
    expect([index.status(slot), index.read(slot)]).toEqual(['bounced', true]);
  });

  it("counts each team's API and flow captures (not SMTP ones) through adds and deletes", () => {
    const index = new MessageIndex();
    index.add(record(1), 1);
    index.add(record(2, { source: 'smtp' }), 1);
    index.add(record(3, { source: 'flow' }), 1);
    index.add(record(4, { team: 'globex' }), 1);
    index.add(record(5, { source: 'smtp', team: null, sender: null }), 1);
    expect([index.teamRecordCount('acme'), index.teamRecordCount('globex'), index.teamRecordCount('nobody')]).toEqual([2, 1, 0]);
    index.remove(1);
    index.remove(2);
    expect(index.teamRecordCount('acme')).toBe(1);
    index.clear();
    expect(index.teamRecordCount('acme')).toBe(0);
  });

  it('refuses a capture out of order, finds slots by binary search, and drops dead slots once they pile up', () => {
    const index = new MessageIndex();
    for (let seq = 1; seq <= 20_000; seq++) index.add(record(seq), 1);
    expect(() => index.add(record(5), 1)).toThrow(/out of order/);
    for (let seq = 1; seq <= 15_000; seq++) expect(index.remove(seq)).toBe(true);
    expect(index.remove(3)).toBe(false);
    expect(index.size).toBe(5_000);
    expect(live(index)).toEqual(Array.from({ length: 5_000 }, (_, i) => 20_000 - i));
    expect(index.slotOf(17_000)).toBeGreaterThanOrEqual(0);
    expect(index.seq(index.slotOf(17_000))).toBe(17_000);
    expect(index.oldest(3)).toEqual([15_001, 15_002, 15_003]);
    expect(index.oldestCreatedMs()).toBe(Date.parse(record(15_001).createdAt));
    index.add(record(20_001), 1);
    expect(index.maxSeq()).toBe(20_001);
  });
});

describe('namespaces in the index', () => {
  it('keeps each capture’s namespace, derives it for records stored before namespaces, and keeps it through compaction', () => {
    const index = new MessageIndex();
    index.add(record(1, { namespace: 'stored' }), 0);
    // Older records have no field: derived from To, Cc, Bcc (the original addresses after a redirect).
    index.add(record(2, { to: ['a@example.com'], cc: ['b+Legacy@example.com'] }), 0);
    index.add(record(3, { redirected: true, to: ['dev@example.com'], originalTo: ['ada+Original@example.com'] }), 0);
    index.add(record(4, { namespace: null, to: ['ada+ignored@example.com'] }), 0);
    const namespaces = () => {
      const out: [number, string | null][] = [];
      index.scanNewestFirst(
        () => true,
        (slot) => void out.push([index.seq(slot), index.namespace(slot)]),
      );
      return out;
    };
    expect(namespaces()).toEqual([
      [4, null],
      [3, 'original'],
      [2, 'legacy'],
      [1, 'stored'],
    ]);
    for (let seq = 5; seq < 5000; seq++) index.add(record(seq, { namespace: `n${seq % 3}` }), 0);
    for (let seq = 5; seq < 5000; seq++) index.remove(seq);
    expect(namespaces()).toEqual([
      [4, null],
      [3, 'original'],
      [2, 'legacy'],
      [1, 'stored'],
    ]);
  });
});
