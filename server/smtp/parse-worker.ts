import { parentPort } from 'node:worker_threads';
import { parseParts, summarizeParts } from './parse-message.ts';
import type { ParseReply, ParseRequest } from './parser-pool.ts';

/**
 * A worker thread that takes SMTP messages apart with mailparser, so the thread that speaks
 * SMTP and stores captures does not spend its time parsing MIME (the second core does).
 */
parentPort!.on('message', (requests: ParseRequest[]) => {
  for (const request of requests) handle(request);
});

/** Replies finished in the same turn go back as one message (see ParserPool.post). */
let outbox: { replies: ParseReply[]; transfer: ArrayBuffer[] } | null = null;
function reply(message: ParseReply, transfer: ArrayBuffer[] = []): void {
  if (!outbox) {
    outbox = { replies: [], transfer: [] };
    queueMicrotask(() => {
      const { replies, transfer: all } = outbox!;
      outbox = null;
      parentPort!.postMessage(replies, all);
    });
  }
  outbox.replies.push(message);
  outbox.transfer.push(...transfer);
}

function handle(request: ParseRequest): void {
  const raw = Buffer.from(request.raw.buffer, request.raw.byteOffset, request.raw.byteLength);
  const work =
    request.kind === 'summary'
      ? summarizeParts(raw).then((summary) => reply({ id: request.id, summary }))
      : parseParts(raw).then((parts) => {
          const transfer: ArrayBuffer[] = [];
          const attachments = parts.attachments.map((a) => {
            const content = new Uint8Array(a.content ?? Buffer.alloc(0));
            transfer.push(content.buffer as ArrayBuffer);
            return { ...a, content };
          });
          reply({ id: request.id, parts: { ...parts, attachments } }, transfer);
        });
  work.catch((error: unknown) => reply({ id: request.id, error: String((error as Error).message ?? error) }));
}
