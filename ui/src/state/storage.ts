/** The part of the Web Storage API the inbox uses (localStorage and sessionStorage have it). */
export interface StorageArea {
  getItem(key: string): string | null;
  setItem(key: string, value: string): void;
  removeItem(key: string): void;
}

export interface SafeStorage {
  get(key: string): string | null;
  set(key: string, value: string): void;
  remove(key: string): void;
}

/**
 * Browser storage that never throws. Reading `window.localStorage` throws a SecurityError where
 * the browser blocks site data (Chromium with cookies blocked, some private modes, sandboxed
 * frames), and `setItem` throws when the quota is used up. `open` is called on every access,
 * inside the try; what this page wrote is kept in memory too, so it reads back for the rest of
 * the visit whether or not the browser stored it.
 */
export function safeStorage(open: () => StorageArea): SafeStorage {
  // What this page wrote (null: removed), newer than anything the browser may hold.
  const written = new Map<string, string | null>();
  return {
    get(key) {
      if (written.has(key)) return written.get(key)!;
      try {
        return open().getItem(key);
      } catch {
        return null;
      }
    },
    set(key, value) {
      written.set(key, value);
      try {
        open().setItem(key, value);
      } catch {
        // Blocked or full: remembered for this visit only.
      }
    },
    remove(key) {
      written.set(key, null);
      try {
        open().removeItem(key);
      } catch {
        // Blocked: forgotten for this visit.
      }
    },
  };
}
