import { readFile, stat, unlink } from 'node:fs/promises';
import { PART, type ContentRef, type PackStore } from './pack-store.ts';
import type { MessageContent } from '../records.ts';

/** An attachment as it arrives: a temporary upload to move in, or its bytes. */
export interface IncomingPart {
  filename: string;
  contentType: string;
  tempPath?: string;
  content?: Buffer;
  contentId?: string;
}

/** One part of a capture, ready to store: bytes for a pack, or a large one already in a file of its own. */
type PreparedPart = { data: Buffer } | { ref: ContentRef; size: number };

/** A capture's bytes, read, sealed and (when large) written before the capture gets its id. */
export interface PreparedContent {
  html: PreparedPart | null;
  text: PreparedPart | null;
  sealed: PreparedPart | null;
  raw: PreparedPart | null;
  /** The HTML body before the account template wrapped it (only when one did). */
  body: PreparedPart | null;
  attachments: PreparedPart[];
}

/** Where a capture's parts are stored: its content, and each attachment with its size. */
export interface StoredContent {
  content: MessageContent;
  attachments: { ref: ContentRef; size: number }[];
}

/**
 * Everything asynchronous about a capture's content, done before it is given its id (ids are
 * handed out, and captures indexed, in order): uploads read, and
 * parts of `largePartSize` or more moved or written into files of their own. The /v1 record
 * body comes sealed already (`sealed`: the domain's encryption).
 */
export async function prepareContent(
  packs: PackStore,
  input: { html: string | null; text: string | null; raw?: Buffer; sealed: Buffer | null; body?: string | null; attachments: IncomingPart[] },
): Promise<PreparedContent> {
  const part = async (data: Buffer | null): Promise<PreparedPart | null> => {
    if (data === null) return null;
    return packs.isLarge(data.length) ? { ref: await packs.addFile(data), size: data.length } : { data };
  };
  const attachments = await Promise.all(
    input.attachments.map(async (a): Promise<PreparedPart> => {
      if (!a.tempPath) return (await part(a.content ?? Buffer.alloc(0)))!;
      const size = (await stat(a.tempPath)).size;
      if (packs.isLarge(size)) return { ref: await packs.adopt(a.tempPath, size), size };
      const data = await readFile(a.tempPath);
      await unlink(a.tempPath).catch(() => undefined);
      return { data };
    }),
  );
  return {
    html: await part(input.html === null ? null : Buffer.from(input.html)),
    text: await part(input.text === null ? null : Buffer.from(input.text)),
    sealed: await part(input.sealed),
    raw: await part(input.raw ?? null),
    body: await part(input.body == null ? null : Buffer.from(input.body)),
    attachments,
  };
}

/**
 * Queues the prepared parts of capture `seq` in the pack (no waiting); says where each is.
 * Volatile (a new capture): rolled back if the write fails; otherwise written again.
 */
export function storeContent(packs: PackStore, seq: number, prepared: PreparedContent, volatile = true): StoredContent {
  const put = (part: PreparedPart, code: number) => ('ref' in part ? part : { ref: packs.add(seq, code, part.data, volatile), size: part.data.length });
  const content: MessageContent = {};
  if (prepared.html) content.html = put(prepared.html, PART.html).ref;
  if (prepared.text) content.text = put(prepared.text, PART.text).ref;
  if (prepared.sealed) content.sealed = put(prepared.sealed, PART.sealed).ref;
  if (prepared.raw) content.raw = put(prepared.raw, PART.raw).ref;
  if (prepared.body) content.body = put(prepared.body, PART.body).ref;
  return { content, attachments: prepared.attachments.map((a, index) => put(a, PART.attachment + index)) };
}

/** Parts already written to files of their own: removed again when the capture is rolled back. */
export function preparedFiles(prepared: PreparedContent): ContentRef[] {
  return [prepared.html, prepared.text, prepared.sealed, prepared.raw, prepared.body, ...prepared.attachments].flatMap((p) => (p && 'ref' in p ? [p.ref] : []));
}
