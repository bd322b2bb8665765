/**
 * Wraps `task` so that calling the result often runs it rarely: at most once per `gapMs`, never
 * two at once, and once more after a run if it was asked for during that run.
 */
export function coalesce(task: () => Promise<void>, gapMs: number): () => void {
  let running = false;
  let again = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let lastStart = 0;
  const run = async () => {
    timer = undefined;
    running = true;
    again = false;
    lastStart = Date.now();
    try {
      await task();
    } catch {
      // The next trigger tries again.
    } finally {
      running = false;
    }
    if (again) trigger();
  };
  const trigger = () => {
    if (running) {
      again = true;
      return;
    }
    if (timer !== undefined) return;
    timer = setTimeout(() => void run(), Math.max(0, lastStart + gapMs - Date.now()));
  };
  return trigger;
}
