import type { MessageRecord } from '../../server/storage/records.ts';

/** A capture's stored record as the storage tests need one: capture `seq` of team acme, sent through the API, with `over` on top. */
export function captureRecord(seq: number, over: Partial<MessageRecord> = {}): MessageRecord {
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
