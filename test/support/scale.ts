import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

/**
 * Scale checks for hostile input (issue 19): is a read linear in its input? The time of one read
 * depends on the machine, so no test compares it with a number of milliseconds; what is compared
 * is how the cost grows. `growth` measures the work on an input and on one GROWTH times larger,
 * and `LINEAR` is the most a linear read may cost more: GROWTH × 2.5, a margin wide enough for a
 * busy machine, and still far below what a quadratic read costs (GROWTH², 64×).
 *
 * Time is CPU time of this process (the app runs in it), not wall time, so another process busy
 * on the machine does not count. Each input is measured several times, alternating, and each
 * keeps its lowest; a measurement repeats the work until the small input alone has cost
 * `MIN_CPU_MS`, so one garbage collection, JIT pause or timer tick does not decide.
 */

export const GROWTH = 8;
export const LINEAR = GROWTH * 2.5;
const MIN_CPU_MS = 40;

// A full collection before each run, so garbage of the run before is not paid by this one.
setFlagsFromString('--expose-gc');
const collectGarbage = runInNewContext('gc') as () => void;

/** CPU microseconds `work` takes, once. */
async function cpuOnce(work: () => unknown): Promise<number> {
  collectGarbage();
  const before = process.cpuUsage();
  await work();
  const used = process.cpuUsage(before);
  return used.user + used.system;
}

/**
 * How much more `work` costs on `make(size × GROWTH)` than on `make(size)` (the ratio of their
 * lowest CPU times); under `LINEAR` for a linear read.
 */
export async function growth<T>(make: (size: number) => T, work: (input: T) => unknown, size: number, runs = 5) {
  const small = make(size);
  const large = make(size * GROWTH);
  // First runs warm the code up (the JIT), unmeasured; they also say how many repeats make MIN_CPU_MS.
  await work(large);
  const once = Math.max(await cpuOnce(() => work(small)), 1);
  const repeats = Math.max(1, Math.ceil((MIN_CPU_MS * 1000) / once));
  const repeated = (input: T) => async () => {
    for (let i = 0; i < repeats; i++) await work(input);
  };
  let smallCost = Infinity;
  let largeCost = Infinity;
  // A ratio over LINEAR gets as many runs again (each input still keeps its lowest): one slow
  // moment of the machine in every run of the large input failed a linear read once in CI
  // (23.8x), while a quadratic read stays near GROWTH² however often it is measured.
  for (let i = 0; i < runs || (i < 2 * runs && largeCost / smallCost >= LINEAR); i++) {
    smallCost = Math.min(smallCost, await cpuOnce(repeated(small)));
    largeCost = Math.min(largeCost, await cpuOnce(repeated(large)));
  }
  return { small: smallCost, large: largeCost, repeats, ratio: largeCost / smallCost };
}

/**
 * The longest the event loop was held while `work` ran, in CPU milliseconds of this process:
 * a timer ticks every 5 ms and notes the process's CPU time; the most CPU spent between two
 * ticks is the longest run of work that kept the loop from turning. CPU time, not wall time,
 * so that a busy machine (the process descheduled mid-read) does not count as a hold.
 */
export async function longestHold(work: () => Promise<unknown>): Promise<number> {
  let last = process.cpuUsage();
  let longest = 0;
  const tick = () => {
    const used = process.cpuUsage(last);
    last = process.cpuUsage();
    longest = Math.max(longest, (used.user + used.system) / 1000);
  };
  const timer = setInterval(tick, 5);
  try {
    await work();
    // One more turn, so a hold at the very end is counted.
    await new Promise((resolve) => setTimeout(resolve, 20));
    tick();
  } finally {
    clearInterval(timer);
  }
  return longest;
}
