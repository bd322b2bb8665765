import { describe, expect, it } from 'vitest';
import { AppendBuffer } from '../../../server/storage/disk/append-buffer.ts';

describe('the buffer a segment log encodes its appends into', () => {
  it('writes each text as Buffer.from would, says its length in bytes, and grows past its first size', () => {
    const out = new AppendBuffer();
    const texts = ['{"seq":1}', 'Zoë 😀 ✓', 'lone \udc00 and \ud83d', 'x'.repeat(200_000), '日本語'.repeat(30_000)];
    const lengths = texts.map((text) => out.text(text));
    expect(lengths).toEqual(texts.map((text) => Buffer.byteLength(text)));
    expect(out.take().equals(Buffer.concat(texts.map((text) => Buffer.from(text))))).toBe(true);
  });

  it('starts over after take, with bytes copied in between texts', () => {
    const out = new AppendBuffer();
    out.text('first write');
    out.take();
    expect(out.bytesOf(Buffer.from('{"records":[\n'))).toBe(13);
    out.text('{"seq":2}');
    out.bytesOf(Buffer.from(',\n'));
    out.text('{"seq":3}');
    expect(out.take().toString()).toBe('{"records":[\n{"seq":2},\n{"seq":3}');
    expect(out.take().length).toBe(0);
  });

  it('a view taken before a large write keeps its bytes when the buffer is let go after it', () => {
    const out = new AppendBuffer();
    out.text('a'.repeat(3 * 1024 * 1024));
    const large = out.take();
    out.shrink();
    out.text('small');
    expect(large.length).toBe(3 * 1024 * 1024);
    expect(large.every((byte) => byte === 0x61)).toBe(true);
    expect(out.take().toString()).toBe('small');
  });
});
