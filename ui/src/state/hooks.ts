import { useEffect, useRef, useState } from 'preact/hooks';

/** Re-renders the component whenever `subscribe`'s source says it changed. */
export function useSubscription(subscribe: (listener: () => void) => () => void): void {
  const [, setVersion] = useState(0);
  useEffect(() => subscribe(() => setVersion((n) => n + 1)), [subscribe]);
}

/** `value`, once it has stopped changing for `ms`. */
export function useDebounced<T>(value: T, ms: number): T {
  const [settled, setSettled] = useState(value);
  useEffect(() => {
    const timer = setTimeout(() => setSettled(value), ms);
    return () => clearTimeout(timer);
  }, [value, ms]);
  return settled;
}

/** Loads `load()` when `key` changes; the answer of a superseded load is dropped. */
export function useLoad<T>(load: (signal: AbortSignal) => Promise<T>, key: unknown[]): { data: T | undefined; error: Error | null; loading: boolean } {
  const [state, setState] = useState<{ data: T | undefined; error: Error | null; loading: boolean }>({ data: undefined, error: null, loading: true });
  const loadRef = useRef(load);
  loadRef.current = load;
  useEffect(() => {
    const controller = new AbortController();
    setState((s) => ({ ...s, loading: true }));
    loadRef.current(controller.signal).then(
      (data) => !controller.signal.aborted && setState({ data, error: null, loading: false }),
      (error: Error) => !controller.signal.aborted && setState({ data: undefined, error, loading: false }),
    );
    return () => controller.abort();
  }, key);
  return state;
}
