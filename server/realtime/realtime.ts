import type { EventEmitter } from 'node:events';
import { STATUS_CODES, type IncomingMessage, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { WebSocket, WebSocketServer } from 'ws';
import { NOT_FOUND as NOT_FOUND_TEXT } from '../service-texts.ts';

/** Turns a domain event's arguments into a frame's `data`; one per event type pushed. */
// biome-ignore lint/suspicious/noExplicitAny: each mapper takes its own event's arguments; only any[] lets one Record hold mappers whose parameters differ.
export type FrameMappers = Record<string, (...args: any[]) => unknown>;

export interface RealtimeOptions {
  /** The `data` of the `hello` frame each client gets on connect. */
  hello: () => unknown;
  /** Which domain events are pushed, and how each becomes a frame's data. */
  frames: FrameMappers;
  /** Path of the WebSocket endpoint on the HTTP port. */
  path?: string;
  /** Ping every client this often; one that has not answered the last ping is cut. */
  heartbeatMs?: number;
  /** A client with more than this many bytes waiting to be sent is cut instead of queued for. */
  maxBufferedBytes?: number;
  /** Called with the number of connected clients whenever it changes (metrics). */
  onClients?(count: number): void;
  /**
   * Decides on each upgrade request before it is accepted (the HTTP port's host, origin and
   * login checks): null upgrades it, a refusal is answered on the raw socket and closes it.
   */
  admit?(request: IncomingMessage): Promise<UpgradeRefusal | null>;
}

/** An HTTP answer to an upgrade request that is not accepted. */
interface UpgradeRefusal {
  status: number;
  body: unknown;
  headers?: Record<string, string>;
}

export interface Realtime {
  readonly clients: number;
  /** Closes every client (1001, going away) and stops listening for upgrades. */
  close(): Promise<void>;
}

const NOT_FOUND = `{"detail": ${JSON.stringify(NOT_FOUND_TEXT)}}`;

function refusalResponse({ status, body, headers = {} }: UpgradeRefusal): string {
  const json = JSON.stringify(body);
  const extra = Object.entries(headers)
    .map(([name, value]) => `${name}: ${value}\r\n`)
    .join('');
  return `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(json)}\r\n${extra}\r\n${json}`;
}

/**
 * Live push over WebSocket on the HTTP server's port: each domain event given a mapper is sent
 * to every client as `{type, data}`. With no clients nothing is subscribed, serialized or
 * timed; a frame is serialized once for all clients, and a client that does not keep up is
 * disconnected rather than buffered for without bound (it reconnects and refetches).
 */
export function attachRealtime(server: Server, events: EventEmitter, options: RealtimeOptions): Realtime {
  const path = options.path ?? '/api/events';
  const heartbeatMs = options.heartbeatMs ?? 30_000;
  const maxBuffered = options.maxBufferedBytes ?? 4 * 1024 * 1024;
  const wss = new WebSocketServer({ noServer: true, maxPayload: 64 * 1024, perMessageDeflate: false, clientTracking: false });
  const clients = new Set<WebSocket>();
  const alive = new WeakSet<WebSocket>();
  const handlers = Object.entries(options.frames).map(([type, map]) => [type, (...args: unknown[]) => broadcast(type, map(...args))] as const);
  let heartbeat: NodeJS.Timeout | undefined;

  function broadcast(type: string, data: unknown): void {
    if (clients.size === 0) return;
    const frame = JSON.stringify({ type, data });
    for (const ws of clients) {
      if (ws.readyState !== WebSocket.OPEN) continue;
      if (ws.bufferedAmount > maxBuffered) {
        drop(ws);
        continue;
      }
      ws.send(frame);
    }
  }

  function drop(ws: WebSocket): void {
    ws.terminate();
    forget(ws);
  }

  function forget(ws: WebSocket): void {
    if (!clients.delete(ws)) return;
    options.onClients?.(clients.size);
    if (clients.size > 0) return;
    for (const [type, handler] of handlers) events.off(type, handler);
    clearInterval(heartbeat);
    heartbeat = undefined;
  }

  function beat(): void {
    for (const ws of clients) {
      if (!alive.has(ws)) {
        drop(ws);
        continue;
      }
      alive.delete(ws);
      ws.ping();
    }
  }

  function welcome(ws: WebSocket): void {
    if (clients.size === 0) {
      for (const [type, handler] of handlers) events.on(type, handler);
      heartbeat = setInterval(beat, heartbeatMs);
      heartbeat.unref();
    }
    clients.add(ws);
    alive.add(ws);
    options.onClients?.(clients.size);
    ws.on('pong', () => alive.add(ws));
    ws.on('close', () => forget(ws));
    ws.on('error', () => drop(ws));
    // Clients only listen; anything they send is ignored.
    ws.send(JSON.stringify({ type: 'hello', data: options.hello() }));
  }

  const onUpgrade = (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => socket.destroy());
    const pathname = new URL(request.url ?? '/', 'http://localhost').pathname;
    if (pathname !== path) {
      socket.end(`HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: ${NOT_FOUND.length}\r\n\r\n${NOT_FOUND}`);
      return;
    }
    if (!options.admit) return wss.handleUpgrade(request, socket, head, welcome);
    options.admit(request).then(
      (refusal) => (refusal ? socket.end(refusalResponse(refusal)) : wss.handleUpgrade(request, socket, head, welcome)),
      () => socket.destroy(),
    );
  };
  server.on('upgrade', onUpgrade);

  return {
    get clients() {
      return clients.size;
    },
    async close() {
      server.off('upgrade', onUpgrade);
      const closed = [...clients].map(
        (ws) =>
          new Promise<void>((resolve) => {
            const cut = setTimeout(() => ws.terminate(), 1000);
            ws.once('close', () => {
              clearTimeout(cut);
              resolve();
            });
            ws.close(1001, 'Server is shutting down');
          }),
      );
      await Promise.all(closed);
      for (const ws of [...clients]) forget(ws);
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}
