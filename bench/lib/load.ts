import { performance } from 'node:perf_hooks';
import type { Client } from './client.ts';

const PROGRESS_EVERY_MS = 5_000;

export interface LoadPlan {
  sends: number;
  concurrency: number;
  /** Recipient number of the first send; each send goes to a new recipient. */
  firstRecipient: number;
  /** Aborts the run (time limit, Ctrl-C). */
  signal: AbortSignal;
  /** Called every five seconds with the number of sends done. */
  onProgress?: (done: number, elapsedSeconds: number) => void;
}

export interface LoadResult {
  sends: number;
  seconds: number;
  /** One entry per send, in milliseconds from request start to the full reply. */
  latenciesMs: Float64Array;
  /** When each send started, in Unix milliseconds (performance.timeOrigin + now()), to line sends up with server events. */
  startedAtMs: Float64Array;
}

/** Runs `sends` sends from `concurrency` workers, each waiting for its reply before the next. */
export async function runSends(client: Client, plan: LoadPlan): Promise<LoadResult> {
  const latenciesMs = new Float64Array(plan.sends);
  const startedAtMs = new Float64Array(plan.sends);
  const started = performance.now();
  let next = 0;
  let done = 0;
  let failed = false;
  const progress = plan.onProgress ? setInterval(() => plan.onProgress!(done, (performance.now() - started) / 1000), PROGRESS_EVERY_MS) : undefined;
  const worker = async () => {
    try {
      while (next < plan.sends && !failed) {
        plan.signal.throwIfAborted();
        const index = next++;
        const t0 = performance.now();
        startedAtMs[index] = performance.timeOrigin + t0;
        await client.send(plan.firstRecipient + index);
        latenciesMs[index] = performance.now() - t0;
        done++;
      }
    } catch (error) {
      // The other workers stop at their next send instead of running on.
      failed = true;
      throw error;
    }
  };
  try {
    await Promise.all(Array.from({ length: Math.min(plan.concurrency, plan.sends) }, worker));
  } finally {
    clearInterval(progress);
  }
  return { sends: plan.sends, seconds: (performance.now() - started) / 1000, latenciesMs, startedAtMs };
}

/**
 * Times `count` sequential GETs of `path` (after as many untimed ones, so a freshly started
 * process is measured warm), each of which must answer 200.
 */
export async function timeReads(client: Client, path: string, count: number): Promise<Float64Array> {
  for (let i = 0; i < count; i++) {
    const reply = await client.get(path);
    if (reply.status !== 200) throw new Error(`GET ${path}: HTTP ${reply.status} ${reply.body.slice(0, 200)}`);
  }
  const latenciesMs = new Float64Array(count);
  for (let i = 0; i < count; i++) {
    const t0 = performance.now();
    const reply = await client.get(path);
    latenciesMs[i] = performance.now() - t0;
    if (reply.status !== 200) throw new Error(`GET ${path}: HTTP ${reply.status} ${reply.body.slice(0, 200)}`);
  }
  return latenciesMs;
}
