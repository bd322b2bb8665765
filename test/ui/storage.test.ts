import { describe, expect, it } from 'vitest';
import { safeStorage, type StorageArea } from '../../ui/src/state/storage.ts';

/** Web Storage as a browser keeps it: strings by key. */
function memoryArea(initial: Record<string, string> = {}): StorageArea & { data: Map<string, string> } {
  const data = new Map(Object.entries(initial));
  return {
    data,
    getItem: (key) => data.get(key) ?? null,
    setItem: (key, value) => void data.set(key, String(value)),
    removeItem: (key) => void data.delete(key),
  };
}

/** What reading `window.localStorage` does where the browser blocks site data (Chromium's words). */
function blocked(): StorageArea {
  throw new DOMException("Failed to read the 'localStorage' property from 'Window': Access is denied for this document.", 'SecurityError');
}

describe('safeStorage', () => {
  it('reads, writes and removes through the browser storage when it works', () => {
    const area = memoryArea({ 'pigeonhole.previewWidth': 'phone' });
    const store = safeStorage(() => area);
    expect(store.get('pigeonhole.previewWidth')).toBe('phone');
    expect(store.get('missing')).toBeNull();
    store.set('pigeonhole.templateDraft', '<p>draft</p>');
    expect(area.data.get('pigeonhole.templateDraft')).toBe('<p>draft</p>');
    store.remove('pigeonhole.previewWidth');
    expect(area.data.has('pigeonhole.previewWidth')).toBe(false);
    expect(store.get('pigeonhole.previewWidth')).toBeNull();
    // Another page (a later visit) reads what this one stored.
    expect(safeStorage(() => area).get('pigeonhole.templateDraft')).toBe('<p>draft</p>');
  });

  it('never throws where reaching the storage throws, and keeps what was written for this visit only', () => {
    let opened = 0;
    const open = () => {
      opened += 1;
      return blocked();
    };
    const store = safeStorage(open);
    expect(store.get('pigeonhole.previewWidth')).toBeNull();
    store.set('pigeonhole.previewWidth', 'tablet');
    expect(store.get('pigeonhole.previewWidth')).toBe('tablet');
    store.remove('pigeonhole.previewWidth');
    expect(store.get('pigeonhole.previewWidth')).toBeNull();
    // The browser was asked each time it could have changed its mind (get, set, remove)...
    expect(opened).toBe(3);
    // ...and the next visit remembers nothing.
    expect(safeStorage(open).get('pigeonhole.previewWidth')).toBeNull();
  });

  it('keeps the newer value for this visit when the browser refuses to store it (quota used up)', () => {
    const area = memoryArea({ 'pigeonhole.templateDraft': 'old draft' });
    const full: StorageArea = {
      getItem: (key) => area.getItem(key),
      setItem: () => {
        const message = "Failed to execute 'setItem' on 'Storage': Setting the value of 'pigeonhole.templateDraft' exceeded the quota.";
        throw new DOMException(message, 'QuotaExceededError');
      },
      removeItem: (key) => area.removeItem(key),
    };
    const store = safeStorage(() => full);
    store.set('pigeonhole.templateDraft', 'new draft');
    expect(store.get('pigeonhole.templateDraft')).toBe('new draft');
    expect(area.data.get('pigeonhole.templateDraft')).toBe('old draft');
  });

  it('never throws where the storage methods themselves throw', () => {
    const broken: StorageArea = {
      getItem: () => {
        throw new DOMException('The operation is insecure.', 'SecurityError');
      },
      setItem: () => {
        throw new DOMException('The operation is insecure.', 'SecurityError');
      },
      removeItem: () => {
        throw new DOMException('The operation is insecure.', 'SecurityError');
      },
    };
    const store = safeStorage(() => broken);
    expect(store.get('a')).toBeNull();
    expect(() => store.set('a', '1')).not.toThrow();
    expect(store.get('a')).toBe('1');
    expect(() => store.remove('a')).not.toThrow();
    expect(store.get('a')).toBeNull();
  });
});
