import { parentPort } from 'node:worker_threads';
import { parseParts, summarizeParts } from './parse-message.ts';
import type { ParseReply, ParseRequest } from './parser-pool.ts';

/**
 * A worker thread that takes SMTP messages apart with mailparser, so the thread that speaks
 * SMTP and stores captures does not spend its time parsing MIME (the second core does).
 */
parentPort!.on('message', (request: ParseRequest) => {
  const raw = Buffer.from(request.raw.buffer, request.raw.byteOffset, request.raw.byteLength);
  const reply = (message: ParseReply, transfer: ArrayBuffer[] = []) => parentPort!.postMessage(message, transfer);
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
});
