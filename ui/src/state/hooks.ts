import { useEffect, useRef, useState } from 'preact/hooks';
import type { FrameListener } from './inbox.ts';

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

/**
 * A count that goes up `ms` after the last live-push frame of one of `types` (a burst of frames
 * counts once): in a useLoad key, it reloads a page when the server changed what it shows.
 */
export function useFrameTick(source: { onFrame(listener: FrameListener): () => void }, types: readonly string[], ms = 200): number {
  const [tick, setTick] = useState(0);
  const typesRef = useRef(types);
  typesRef.current = types;
  useEffect(() => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const off = source.onFrame((frame) => {
      if (!typesRef.current.includes(frame.type)) return;
      clearTimeout(timer);
      timer = setTimeout(() => setTick((t) => t + 1), ms);
    });
    return () => {
      off();
      clearTimeout(timer);
    };
  }, [source, ms]);
  return tick;
}

/** An element's width in CSS px as it is laid out, kept current as it resizes (0 before it is). */
export function useElementWidth(): [(element: HTMLElement | null) => void, number] {
  const [element, setElement] = useState<HTMLElement | null>(null);
  const [width, setWidth] = useState(0);
  useEffect(() => {
    if (!element) return;
    const observer = new ResizeObserver(() => setWidth(Math.round(element.clientWidth)));
    observer.observe(element);
    setWidth(Math.round(element.clientWidth));
    return () => observer.disconnect();
  }, [element]);
  return [setElement, width];
}
