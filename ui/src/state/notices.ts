import { PigeonholeError } from '../../../client/pigeonhole-client.ts';
import { answerDetail, SandboxUnreachable } from '../sandbox.ts';

/** A failure the user should know about: what did not happen, why, and what to do. */
export interface Notice {
  id: number;
  /** The action it is about (`delete:<id>`, `clear`, ...): a newer notice for it replaces this one. */
  key: string;
  title: string;
  detail: string;
  advice: string | null;
}

/** The most notices shown at once; an older one goes when a fourth comes. */
const MAX_SHOWN = 3;

/**
 * The notices the app shell shows, oldest first. A failure stays until it is dismissed or
 * superseded: by a newer failure of the same action, or by that action succeeding.
 */
export class Notices {
  items: readonly Notice[] = [];
  private nextId = 1;
  private readonly listeners = new Set<() => void>();

  /**
   * Reports that `title` (e.g. "Could not delete the message.") happened because of `error`;
   * `advice` says what to do where the cause alone does not.
   */
  fail(key: string, title: string, error: unknown, advice?: string): void {
    const explained = explain(error);
    const notice = { id: this.nextId++, key, title, detail: explained.detail, advice: advice ?? explained.advice };
    this.items = [...this.items.filter((n) => n.key !== key), notice].slice(-MAX_SHOWN);
    this.emit();
  }

  /** The action `key` worked: a failure still shown for it is out of date. */
  succeeded(key: string): void {
    if (this.items.some((n) => n.key === key)) {
      this.items = this.items.filter((n) => n.key !== key);
      this.emit();
    }
  }

  dismiss(id: number): void {
    this.items = this.items.filter((n) => n.id !== id);
    this.emit();
  }

  subscribe = (listener: () => void): (() => void) => {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  };

  private emit(): void {
    for (const listener of this.listeners) listener();
  }
}

/** Why it failed and what to do, in plain words: the server's own `detail` where it gave one. */
export function explain(error: unknown): { detail: string; advice: string | null } {
  if (error instanceof SandboxUnreachable) {
    return {
      detail: 'The sandbox cannot be reached: Pigeonhole may have stopped, or the network is down.',
      advice: 'Try again once it is back; the inbox reconnects by itself.',
    };
  }
  if (error instanceof PigeonholeError) {
    // The server's detail says more than the status text does.
    const said = answerDetail(error);
    const status = said === null && error.statusText ? `${error.status} ${error.statusText}` : String(error.status);
    const detail = said === null ? `The sandbox answered ${status}.` : `The sandbox answered ${status}: ${said}`;
    return { detail, advice: advise(error.status, said) };
  }
  return { detail: error instanceof Error ? error.message : String(error), advice: null };
}

function advise(status: number, detail: string | null): string | null {
  if (status === 404) return 'It may have been deleted already, in another tab or through the API.';
  // A 507's detail names the cause and the fix (the storage engine's words).
  if (status === 507) return detail === null ? 'The sandbox could not write to its data directory: /readyz says why.' : null;
  if (status >= 500) return 'Try again; if it keeps failing, the server log says why.';
  return null;
}
