import { sandbox } from '../sandbox.ts';
import { connectRealtime, eventsUrl, type ConnectionState } from '../realtime.ts';
import type { Frame, MessageFilter } from '../types.ts';
import { coalesce } from './coalesce.ts';
import { MessageWindow } from './message-window.ts';

export type FrameListener = (frame: Frame | { type: 'reconnected' }) => void;

/**
 * The live state every view shares: the capture list window and the WebSocket. Pushed frames
 * mark the list stale (coalesced refetch) or patch it in place; other views listen to frames
 * for their own data, and to `reconnected` to refetch after an outage.
 */
export class Inbox {
  readonly list = new MessageWindow((filter, offset, limit, signal) => sandbox.list({ ...filter, offset, limit, signal }));
  connection: ConnectionState = 'connecting';
  /** The SMTP port, when the server announces it in its hello frame. */
  smtpPort: number | null = null;
  /** Unread captures in the whole inbox (null until known). */
  unread: number | null = null;
  private readonly refreshUnread = coalesce(async () => {
    const page = await sandbox.list({ read: false, offset: 0, limit: 1 });
    if (page.total !== this.unread) {
      this.unread = page.total;
      this.emit();
    }
  }, 500);
  private filter: MessageFilter = {};
  private started = false;
  private readonly listeners = new Set<() => void>();
  private readonly frameListeners = new Set<FrameListener>();
  private realtime: { close(): void } | null = null;

  start(): void {
    this.refreshUnread();
    this.realtime = connectRealtime({
      url: eventsUrl(),
      onFrame: (frame) => this.handle(frame),
      onState: (state) => {
        this.connection = state;
        this.emit();
      },
      onReconnect: () => {
        this.list.invalidate();
        this.refreshUnread();
        for (const listener of this.frameListeners) listener({ type: 'reconnected' });
      },
    });
  }

  stop(): void {
    this.realtime?.close();
  }

  /** Applies a search or filter change; the same filter again costs nothing. */
  setFilter(filter: MessageFilter): void {
    const normal = normalise(filter);
    if (this.started && JSON.stringify(normal) === JSON.stringify(this.filter)) return;
    this.started = true;
    this.filter = normal;
    this.list.setFilter(normal);
  }

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  onFrame(listener: FrameListener): () => void {
    this.frameListeners.add(listener);
    return () => this.frameListeners.delete(listener);
  }

  private handle(frame: Frame): void {
    if (frame.type.startsWith('message.') || frame.type === 'sandbox.reset') this.refreshUnread();
    switch (frame.type) {
      case 'message.created':
        this.list.created(frame.data, Object.keys(this.filter).length > 0);
        break;
      case 'message.cleared':
      case 'sandbox.reset':
        this.list.invalidate();
        break;
      case 'message.status':
      case 'message.updated':
        this.list.patch(frame.data);
        // A filtered list may gain or lose the message (read, status): ask the server.
        if (Object.keys(this.filter).length > 0) this.list.invalidate();
        break;
      case 'message.deleted':
        this.list.removeLocally(frame.data.ids);
        this.list.invalidate();
        break;
      case 'hello':
        if (typeof frame.data.smtp_port === 'number' && frame.data.smtp_port !== this.smtpPort) {
          this.smtpPort = frame.data.smtp_port;
          this.emit();
        }
        break;
      default:
        break;
    }
    for (const listener of this.frameListeners) listener(frame);
  }

  private emit(): void {
    for (const listener of this.listeners) listener();
  }
}

function normalise(filter: MessageFilter): MessageFilter {
  const out: MessageFilter = {};
  for (const [key, value] of Object.entries(filter) as [keyof MessageFilter, MessageFilter[keyof MessageFilter]][]) {
    const v = typeof value === 'string' ? value.trim() : value;
    if (v !== undefined && v !== '') (out as Record<string, unknown>)[key] = v;
  }
  return out;
}
