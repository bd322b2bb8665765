import type { RequestListener } from 'node:http';
import inject, { type InjectOptions } from 'light-my-request';

/** What an in-process call carries over from the request it is made for. */
export interface CallerContext {
  /** Headers copied onto every call (Host, and the credentials of the sandbox's login). */
  headers: Record<string, string>;
  remoteAddress?: string;
}

/**
 * A fetch that is answered by this process's own HTTP app, through its whole middleware chain
 * (metrics, request log, errors, and any origin or login check in front), without a socket.
 * The /mcp endpoint gives it to the typed client, so its tools make the very requests that
 * `pigeonhole mcp --url ...` makes over the network.
 */
export function inProcessFetch(dispatch: () => RequestListener, caller: CallerContext): typeof fetch {
  return async (input, init) => {
    const request = new Request(input, init);
    const url = new URL(request.url);
    const headers: Record<string, string> = { ...caller.headers };
    // The call's own headers win (a /v1 call's Authorization: Api-Key).
    request.headers.forEach((value, name) => {
      headers[name] = value;
    });
    const payload = request.body === null ? undefined : Buffer.from(await request.arrayBuffer());
    const { signal } = request;
    signal.throwIfAborted();
    const listener = dispatch();
    let hangUp: (() => void) | undefined;
    const response = await inject(
      (req, res) => {
        // Aborted (a cancelled task's wait): the response is dropped, as when a network client
        // goes away, and the route sees its 'close' (the waits stop on it).
        hangUp = () => res.destroy();
        signal.addEventListener('abort', hangUp, { once: true });
        listener(req, res);
      },
      {
        method: request.method as InjectOptions['method'],
        url: url.pathname + url.search,
        headers,
        ...(payload === undefined ? {} : { payload }),
        ...(caller.remoteAddress === undefined ? {} : { remoteAddress: caller.remoteAddress }),
      },
    )
      .catch((error: unknown) => {
        // As fetch: an aborted call rejects with the signal's reason.
        throw signal.aborted ? signal.reason : error;
      })
      .finally(() => {
        if (hangUp) signal.removeEventListener('abort', hangUp);
      });
    const out = new Headers();
    for (const [name, value] of Object.entries(response.headers)) {
      if (value === undefined) continue;
      for (const item of Array.isArray(value) ? value : [String(value)]) out.append(name, item);
    }
    const empty = [101, 204, 205, 304].includes(response.statusCode) || request.method === 'HEAD';
    return new Response(empty ? null : new Uint8Array(response.rawPayload), { status: response.statusCode, headers: out });
  };
}
