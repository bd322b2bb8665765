import WebSocket, { type ClientOptions } from 'ws';
import { eventually } from './eventually.ts';

export interface Frame {
  type: string;
  data: any;
}

/** A real WebSocket client that records every frame it receives. */
export async function connectEvents(url: string, options: ClientOptions = {}) {
  const ws = new WebSocket(url, options);
  const frames: Frame[] = [];
  ws.on('message', (data) => frames.push(JSON.parse(String(data)) as Frame));
  const closed = new Promise<{ code: number; reason: string }>((resolve) => ws.on('close', (code, reason) => resolve({ code, reason: String(reason) })));
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve());
    ws.once('error', reject);
  });
  return {
    ws,
    frames,
    closed,
    /** The first frame of this type received from index `from` on. */
    next(type: string, from = 0): Promise<Frame> {
      return eventually(() => frames.slice(from).find((f) => f.type === type));
    },
    close() {
      ws.close();
      return closed;
    },
  };
}
