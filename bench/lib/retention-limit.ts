import { setTimeout as sleep } from 'node:timers/promises';
import { optionList } from '../../server/config.ts';
import { format, median } from './figures.ts';
import type { HttpClient } from './http-client.ts';

/**
 * The server's default retention cap (server/config.ts): where a sandbox that runs for a while
 * sits, every capture also pruning one (issue 21, point 6).
 */
export const DEFAULT_CAP = Number(optionList().find((o) => o.flag === 'max-messages')!.default);

/** How many captures the server holds (GET /api/messages?limit=1). */
export async function storedCaptures(client: HttpClient): Promise<number> {
  const reply = await client.get('/api/messages?limit=1');
  if (reply.status !== 200) throw new Error(`GET /api/messages: HTTP ${reply.status} ${reply.body.slice(0, 200)}`);
  return (JSON.parse(reply.body) as { total: number }).total;
}

/**
 * Fills a server at the default settings past its retention cap, untimed: `send(seconds)` loads
 * it for that long and resolves with how many captures it accepted, and is called until a fifth
 * more than the cap were accepted; then waits until retention has brought the inbox back to the
 * cap. Resolves with how many were sent.
 */
export async function fillPastCap(
  client: HttpClient,
  send: (seconds: number) => Promise<number>,
  signal: AbortSignal,
  log: (line: string) => void,
): Promise<number> {
  let sent = 0;
  const target = Math.ceil(DEFAULT_CAP * 1.2);
  while (sent < target) {
    signal.throwIfAborted();
    sent += await send(2);
  }
  for (;;) {
    const stored = await storedCaptures(client);
    if (stored <= DEFAULT_CAP) {
      log(`at the retention limit: ${format(sent)} captures sent, ${format(stored)} kept (the default cap, ${format(DEFAULT_CAP)})`);
      return sent;
    }
    signal.throwIfAborted();
    await sleep(100);
  }
}

/** Per-round ratios of `ours` to `peer` (the rounds ran in turn, so each pair saw the same machine), and their median. */
export function pairRatios(ours: readonly number[], peer: readonly number[]): { ratios: number[]; median: number } {
  const ratios = ours.map((rate, i) => rate / peer[i]!);
  return { ratios, median: median(ratios) };
}

/** `1.52x, 1.61x, 1.48x (median 1.52x)`. */
export function ratioText({ ratios, median: mid }: { ratios: number[]; median: number }, digits = 2): string {
  return `${ratios.map((r) => `${format(r, digits)}x`).join(', ')} (median ${format(mid, digits)}x)`;
}
