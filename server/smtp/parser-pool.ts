import { Worker } from 'node:worker_threads';
import type { MessageParts, PartsSummary, RawParser, UnparsedCaptures } from '../domain/messages/incoming.ts';
import { ParseQueue } from './parse-queue.ts';
import { parseParts, summarizeParts } from './parse-message.ts';

export interface ParseRequest {
  id: number;
  kind: 'summary' | 'parts';
  raw: Uint8Array;
}

export type ParseReply =
  | { id: number; summary: PartsSummary }
  | {
      id: number;
      parts: { html: string | null; text: string | null; attachments: (Omit<MessageParts['attachments'][number], 'content'> & { content: Uint8Array })[] };
    }
  | { id: number; error: string };

const SOURCE = import.meta.url.endsWith('.ts');

/**
 * mailparser in a worker thread, started with the first SMTP message: the thread that speaks
 * SMTP and stores captures only reads the headers, and the MIME parsing runs on the second
 * core. If the worker cannot start (or dies), messages are parsed in this thread instead, with
 * the same code.
 */
export class ParserPool implements RawParser {
  private worker: Worker | null = null;
  private broken = false;
  private nextId = 0;
  private readonly waiting = new Map<number, { resolve: (reply: ParseReply) => void; reject: (error: Error) => void }>();

  summary(raw: Buffer): Promise<PartsSummary> {
    return this.ask('summary', raw).then(
      (reply) => ('summary' in reply ? reply.summary : Promise.reject(new Error(errorOf(reply)))),
      () => summarizeParts(raw),
    );
  }

  parts(raw: Buffer): Promise<MessageParts> {
    return this.ask('parts', raw).then(
      (reply) => {
        if (!('parts' in reply)) throw new Error(errorOf(reply));
        const { html, text, attachments } = reply.parts;
        return {
          html,
          text,
          attachments: attachments.map((a) => ({ ...a, content: Buffer.from(a.content.buffer, a.content.byteOffset, a.content.byteLength) })),
        };
      },
      () => parseParts(raw),
    );
  }

  queue(captures: UnparsedCaptures): ParseQueue {
    return new ParseQueue(this, captures);
  }

  async close(): Promise<void> {
    const worker = this.worker;
    this.worker = null;
    await worker?.terminate();
  }

  private ask(kind: ParseRequest['kind'], raw: Buffer): Promise<ParseReply> {
    const worker = this.start();
    if (!worker) return Promise.reject(new Error('no worker'));
    const id = this.nextId++;
    // A copy is handed over (transferred, not cloned): the capture keeps its own bytes.
    const copy = new Uint8Array(raw);
    return new Promise((resolve, reject) => {
      this.waiting.set(id, { resolve, reject });
      worker.postMessage({ id, kind, raw: copy } satisfies ParseRequest, [copy.buffer]);
    });
  }

  private start(): Worker | null {
    if (this.worker || this.broken) return this.worker;
    try {
      const file = new URL(SOURCE ? './parse-worker.ts' : './parse-worker.js', import.meta.url);
      // From the sources (tsx, tests), the worker needs tsx too.
      const worker = new Worker(file, SOURCE ? { execArgv: [...process.execArgv.filter((a) => a !== '--import' && a !== 'tsx'), '--import', 'tsx'] } : {});
      worker.unref();
      worker.on('message', (reply: ParseReply) => {
        const waiter = this.waiting.get(reply.id);
        this.waiting.delete(reply.id);
        waiter?.resolve(reply);
      });
      const fail = (error: Error) => {
        this.broken = true;
        this.worker = null;
        for (const waiter of this.waiting.values()) waiter.reject(error);
        this.waiting.clear();
      };
      worker.on('error', fail);
      worker.on('exit', (code) => {
        if (this.worker === worker) fail(new Error(`the parser worker exited (${code})`));
      });
      this.worker = worker;
      return worker;
    } catch {
      this.broken = true;
      return null;
    }
  }
}

function errorOf(reply: ParseReply): string {
  return 'error' in reply ? reply.error : 'unexpected reply from the parser worker';
}
