import { requirePeer } from './peers.ts';

/** What the benchmarks read of autocannon's result (autocannon ships no types). */
export interface AutocannonResult {
  /** Seconds. */
  duration: number;
  '2xx': number;
  non2xx: number;
  errors: number;
  timeouts: number;
  statusCodeStats: Record<string, { count: number }>;
  latency: { p50: number; p99: number; average: number; max: number };
}
export interface AutocannonRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
  setupRequest?: (request: AutocannonRequest) => AutocannonRequest;
}
type Autocannon = (
  options: { url: string; connections: number; duration: number; requests: AutocannonRequest[] },
  done: (error: Error | null, result: AutocannonResult) => void,
) => { stop(): void };

/** Runs autocannon (bench/peers, installed by ensurePeers) against `url` for `seconds`; Ctrl-C (`signal`) stops it. */
export async function autocannonRun(
  url: string,
  { connections, seconds, request, signal }: { connections: number; seconds: number; request: AutocannonRequest; signal: AbortSignal },
): Promise<AutocannonResult> {
  const autocannon = requirePeer<Autocannon>('autocannon');
  let stop = () => {};
  const result = await new Promise<AutocannonResult>((resolve, reject) => {
    const run = autocannon({ url, connections, duration: seconds, requests: [request] }, (error, done) => (error ? reject(error) : resolve(done)));
    stop = () => run.stop();
    signal.addEventListener('abort', stop, { once: true });
  }).finally(() => signal.removeEventListener('abort', stop));
  signal.throwIfAborted();
  return result;
}

/** Non-2xx answers by status code, socket errors and timeouts of a run. */
export function failuresOf(result: AutocannonResult): Map<string, number> {
  const failures = new Map<string, number>();
  for (const [code, { count }] of Object.entries(result.statusCodeStats)) if (!code.startsWith('2')) failures.set(`HTTP ${code}`, count);
  if (result.errors > 0) failures.set('socket errors', result.errors);
  if (result.timeouts > 0) failures.set('timeouts', result.timeouts);
  return failures;
}

/**
 * `POST /v1/email/send/` with `bulk-key` (no daily limit), each request to a new recipient
 * (autocannon rebuilds it through the hook), its body from `body(n)`.
 */
export function sendRequest(body: (n: number) => unknown): AutocannonRequest {
  let sent = 0;
  return {
    method: 'POST',
    path: '/v1/email/send/',
    headers: { Authorization: 'Api-Key bulk-key', 'Content-Type': 'application/json' },
    setupRequest(base) {
      sent++;
      return { ...base, body: JSON.stringify(body(sent)) };
    },
  };
}
