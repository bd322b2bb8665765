import { expect } from 'vitest';

/**
 * Polls `find` with `expect.poll` until it returns something other than undefined, and returns
 * that: for the waits that need what they waited for (a frame, a record). `options` are
 * expect.poll's (the project default is 5 s, every 20 ms).
 */
export async function eventually<T>(find: () => T | undefined | Promise<T | undefined>, options?: { timeout?: number; interval?: number }): Promise<T> {
  let found: T | undefined;
  await expect.poll(async () => (found = await find()), options).toBeDefined();
  return found as T;
}
