import type { Frame } from './types.ts';

export type ConnectionState = 'connecting' | 'live' | 'offline';

export interface RealtimeOptions {
  url: string;
  onFrame: (frame: Frame) => void;
  onState: (state: ConnectionState) => void;
  /** Called when the connection comes back after an outage: what was shown may be stale. */
  onReconnect: () => void;
  /** First retry delay; doubles up to maxDelayMs, with jitter. */
  minDelayMs?: number;
  maxDelayMs?: number;
}

/**
 * The /api/events WebSocket: reconnects by itself with exponential backoff (and at once when
 * the tab comes back online or visible), and reports a reconnect so the UI refetches.
 */
export function connectRealtime(options: RealtimeOptions): { close(): void } {
  const minDelay = options.minDelayMs ?? 500;
  const maxDelay = options.maxDelayMs ?? 5000;
  let socket: WebSocket | null = null;
  let attempt = 0;
  let everConnected = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let closed = false;

  const open = () => {
    clearTimeout(timer);
    timer = undefined;
    if (closed) return;
    options.onState('connecting');
    const ws = new WebSocket(options.url);
    socket = ws;
    ws.onopen = () => {
      attempt = 0;
      options.onState('live');
      if (everConnected) options.onReconnect();
      everConnected = true;
    };
    ws.onmessage = (event) => {
      let frame: Frame;
      try {
        frame = JSON.parse(String(event.data)) as Frame;
      } catch {
        return;
      }
      if (frame && typeof frame.type === 'string') options.onFrame(frame);
    };
    ws.onclose = () => {
      if (socket !== ws) return;
      socket = null;
      if (closed) return;
      options.onState('offline');
      const delay = Math.min(maxDelay, minDelay * 2 ** attempt);
      attempt += 1;
      timer = setTimeout(open, delay * (0.75 + Math.random() * 0.5));
    };
  };
  const retryNow = () => {
    if (!closed && socket === null && timer !== undefined) open();
  };
  const onVisible = () => {
    if (document.visibilityState === 'visible') retryNow();
  };
  window.addEventListener('online', retryNow);
  document.addEventListener('visibilitychange', onVisible);
  open();
  return {
    close() {
      closed = true;
      clearTimeout(timer);
      window.removeEventListener('online', retryNow);
      document.removeEventListener('visibilitychange', onVisible);
      socket?.close();
    },
  };
}

export function eventsUrl(): string {
  const scheme = location.protocol === 'https:' ? 'wss:' : 'ws:';
  return `${scheme}//${location.host}/api/events`;
}
