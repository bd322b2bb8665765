import { afterEach, describe, expect, it, vi } from 'vitest';
import type { MessageRecord } from '../../server/domain/entities.ts';
import type { PartsSummary, UnparsedCaptures } from '../../server/domain/messages/incoming.ts';
import { summarizeParts } from '../../server/smtp/parse-message.ts';
import { ParseQueue } from '../../server/smtp/parse-queue.ts';

/**
 * The SMTP parse queue (server/smtp/parse-queue.ts) with the real mailparser summary, in front
 * of captures kept in a map: what the queue hands back for each capture is what it found.
 */

afterEach(() => vi.restoreAllMocks());

function message(n: number, files: string[]): Buffer {
  const boundary = `b${n}`;
  const parts = [
    `--${boundary}\r\nContent-Type: text/plain\r\n\r\nMessage ${n}\r\n`,
    ...files.map(
      (name) => `--${boundary}\r\nContent-Type: text/plain; name="${name}"\r\nContent-Disposition: attachment; filename="${name}"\r\n\r\n${name} bytes\r\n`,
    ),
  ];
  return Buffer.from(
    `From: a@example.com\r\nTo: b@example.com\r\nSubject: ${n}\r\nMIME-Version: 1.0\r\nContent-Type: multipart/mixed; boundary="${boundary}"\r\n\r\n${parts.join('')}--${boundary}--\r\n`,
  );
}

function capture(seq: number, raw: Buffer): MessageRecord {
  return { seq, unparsed: true, content: { raw: { f: `raw-${seq}`, n: raw.length } }, attachments: [] } as unknown as MessageRecord;
}

/** Captures in memory, each unparsed with its raw bytes; records what the queue asks and hands back. */
function captures(messages: Map<number, Buffer>) {
  const records = new Map([...messages].map(([seq, raw]) => [seq, capture(seq, raw)]));
  const found: { seq: number; summary: PartsSummary | null }[] = [];
  const readBack: number[] = [];
  const side: UnparsedCaptures = {
    read: async (seq) => records.get(seq),
    raw: async (record) => {
      readBack.push(record.seq);
      return messages.get(record.seq)!;
    },
    parsed: async (seq, record, summary) => {
      found.push({ seq, summary });
      delete record.unparsed;
      return record;
    },
  };
  return { side, records, found, readBack };
}

describe('the SMTP parse queue', () => {
  it('takes each capture apart once, its attachments in the order of the message, from the bytes kept at ingest', async () => {
    const messages = new Map([
      [1, message(1, ['one.txt', 'two.txt', 'three.txt'])],
      [2, message(2, [])],
      [3, message(3, ['only.txt'])],
    ]);
    const { side, records, found, readBack } = captures(messages);
    let parses = 0;
    const counted = (raw: Buffer) => {
      parses++;
      return summarizeParts(raw);
    };
    const queue = new ParseQueue({ summary: counted }, side);
    for (const [seq, raw] of messages) queue.keep(records.get(seq)!, raw);
    for (const seq of messages.keys()) queue.add(seq);
    // A reader that needs capture 1 now joins its parse rather than starting another.
    await queue.parsed(1);
    await queue.close();
    expect(parses).toBe(3);
    expect(readBack).toEqual([]);
    expect(found.map((f) => f.seq).sort()).toEqual([1, 2, 3]);
    const bySeq = new Map(found.map((f) => [f.seq, f.summary!]));
    expect(bySeq.get(1)!.attachments.map((a) => a.filename)).toEqual(['one.txt', 'two.txt', 'three.txt']);
    expect(bySeq.get(2)!).toMatchObject({ text: true, html: false, attachments: [] });
    expect(bySeq.get(3)!.attachments.map((a) => a.filename)).toEqual(['only.txt']);
    // Parsed already: asked again, it is handed back as it is, with nothing to store.
    expect(await queue.parsed(2)).toBe(records.get(2));
    expect(found.at(-1)).toEqual({ seq: 2, summary: null });
  });

  it('reads the bytes back when they did not fit in its buffer, and goes on past a parse that fails', async () => {
    const messages = new Map([
      [1, message(1, ['a.txt'])],
      [2, Buffer.from('BROKEN')],
      [3, message(3, ['c.txt'])],
    ]);
    const { side, records, found, readBack } = captures(messages);
    const logged = vi.spyOn(console, 'error').mockImplementation(() => undefined);
    const parser = { summary: (raw: Buffer) => (raw.toString() === 'BROKEN' ? Promise.reject(new Error('not a message')) : summarizeParts(raw)) };
    const queue = new ParseQueue(parser, side, 0);
    for (const [seq, raw] of messages) queue.keep(records.get(seq)!, raw);
    for (const seq of messages.keys()) queue.add(seq);
    await queue.close();
    expect(readBack.sort()).toEqual([1, 2, 3]);
    expect(found.map((f) => f.seq).sort()).toEqual([1, 3]);
    expect(records.get(2)!.unparsed).toBe(true);
    expect(String(logged.mock.calls[0]?.[0])).toContain('capture 2');
    // A reader asking for it later tries again (the failed parse is not remembered).
    await expect(queue.parsed(2)).rejects.toThrow('not a message');
  });

  it('lets a deleted capture go: its kept bytes are dropped and nothing is handed back for it', async () => {
    const messages = new Map([[1, message(1, [])]]);
    const { side, records, found, readBack } = captures(messages);
    const queue = new ParseQueue({ summary: summarizeParts }, side);
    queue.keep(records.get(1)!, messages.get(1)!);
    records.delete(1);
    queue.drop(1);
    expect(await queue.parsed(1)).toBeUndefined();
    await queue.close();
    expect(found).toEqual([]);
    expect(readBack).toEqual([]);
  });
});
