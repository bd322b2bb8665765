import { monitorEventLoopDelay } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * Scale checks for hostile input (issue 19): a read of 4× the input must cost less than 5× the
 * time. Time is CPU time of this process (the app runs in it), not wall time, so another
 * process busy on the machine does not count; each size is the lowest of a few runs, so one
 * garbage collection or JIT pause does not decide.
 */

// A full collection before each run, so garbage of the run before is not paid by this one.
setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

/** CPU microseconds `work` takes, the lowest of `runs`. */
export async function cpuCost(work: () => unknown, runs = 3): Promise<number> {
  let best = Infinity;
  for (let i = 0; i < runs; i++) {
    collectGarbage();
    const before = process.cpuUsage();
    await work();
    const used = process.cpuUsage(before);
    best = Math.min(best, used.user + used.system);
  }
  return best;
}

/** The cost at `size` and at 4× `size` of `work(input)`, with their ratio. */
export async function scaling(make: (size: number) => string, work: (input: string) => unknown, size: number, runs = 3) {
  const small = make(size);
  const large = make(size * 4);
  // A first run warms the code up (the JIT), unmeasured.
  await work(small);
  const smallCost = await cpuCost(() => work(small), runs);
  const largeCost = await cpuCost(() => work(large), runs);
  return { small: smallCost, large: largeCost, ratio: largeCost / smallCost };
}

/** The longest the event loop was held (ms) while `work` ran. */
export async function longestHold(work: () => Promise<unknown>): Promise<number> {
  const histogram = monitorEventLoopDelay({ resolution: 10 });
  histogram.enable();
  try {
    await work();
    // One more turn, so a hold at the very end is sampled.
    await new Promise((resolve) => setTimeout(resolve, 20));
  } finally {
    histogram.disable();
  }
  return histogram.max / 1e6;
}
