import { type AskedRequest, PigeonholeError, PigeonholeUnreachable } from './errors.ts';
import type { ClientOptions } from './client-options.ts';

/** A call's query parameters: undefined ones are left out, dates are sent as ISO-8601. */
export type Query = Record<string, string | number | boolean | Date | undefined>;

/**
 * The HTTP under the typed client: the base URL, the login (HTTP Basic, also taken from a
 * `user:password@` in the URL), the fetch, and how an answer is read: JSON, or a PigeonholeError
 * naming the request. PigeonholeClient (pigeonhole-client.ts) adds a method per call.
 */
export class Transport {
  readonly baseUrl: string;
  protected readonly fetch: typeof fetch;
  protected readonly authorization: string | null;

  constructor(options: ClientOptions = {}) {
    const base = new URL(options.baseUrl ?? 'http://localhost:8025');
    // fetch refuses URLs with credentials: they become the Authorization header instead.
    const fromUrl = base.username ? `${decodeURIComponent(base.username)}:${decodeURIComponent(base.password)}` : undefined;
    base.username = '';
    base.password = '';
    this.baseUrl = base.href.replace(/\/+$/, '');
    this.fetch = options.fetch ?? globalThis.fetch.bind(globalThis);
    const auth = options.auth ?? fromUrl;
    this.authorization = auth === undefined || auth === '' ? null : basic(typeof auth === 'string' ? auth : `${auth.user}:${auth.password}`);
  }

  protected async call<T>(method: string, path: string, query?: Query, body?: object, signal?: AbortSignal): Promise<T> {
    const url = new URL(this.baseUrl + path);
    for (const [name, value] of Object.entries(query ?? {})) {
      if (value !== undefined) url.searchParams.set(name, value instanceof Date ? value.toISOString() : String(value));
    }
    return this.parse<T>(await this.send(url.href, this.init(method, body, signal)), { method, url: url.href });
  }

  /**
   * The fetch: a request that gets no answer (fetch's TypeError: refused, unknown host, reset)
   * throws PigeonholeUnreachable, naming the URL. An abort stays an AbortError, and an error of a
   * `fetch` given in the options (its own class) passes as it is.
   */
  protected async send(url: string, init: RequestInit): Promise<Response> {
    try {
      return await this.fetch(url, init);
    } catch (error) {
      if (init.signal?.aborted || !(error instanceof TypeError)) throw error;
      throw new PigeonholeUnreachable({ method: init.method ?? 'GET', url }, error);
    }
  }

  /** The request: the login, the JSON body (undefined fields left out) and the signal. */
  protected init(method: string, body?: object, signal?: AbortSignal, accept?: string): RequestInit {
    const headers: Record<string, string> = {};
    if (this.authorization !== null) headers.Authorization = this.authorization;
    if (accept !== undefined) headers.Accept = accept;
    const init: RequestInit = { method, headers, ...(signal ? { signal } : {}) };
    if (body !== undefined) {
      headers['Content-Type'] = 'application/json';
      init.body = JSON.stringify(Object.fromEntries(Object.entries(body).filter(([, v]) => v !== undefined)));
    }
    return init;
  }

  protected async text(path: string, signal?: AbortSignal): Promise<string> {
    const url = this.baseUrl + path;
    const response = await this.send(url, this.init('GET', undefined, signal));
    if (!response.ok) return this.parse(response, { method: 'GET', url });
    return response.text();
  }

  protected async parse<T>(response: Response, request: AskedRequest): Promise<T> {
    const text = await response.text();
    let body: unknown = null;
    if (text !== '') {
      try {
        body = JSON.parse(text);
      } catch {
        body = text;
      }
    }
    if (!response.ok) throw new PigeonholeError(response.status, body, response.statusText, { method: request.method, url: request.url });
    return body as T;
  }
}

/** The JSON objects of a stream of lines (`application/x-ndjson`), each as its line ends. */
export async function* jsonLines<T>(body: ReadableStream<Uint8Array>): AsyncGenerator<T> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffered = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    buffered += decoder.decode(value, { stream: true });
    let newline: number;
    while ((newline = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, newline).trim();
      buffered = buffered.slice(newline + 1);
      if (line) yield JSON.parse(line) as T;
    }
  }
  buffered += decoder.decode();
  if (buffered.trim()) yield JSON.parse(buffered) as T;
}

/** An HTTP Basic header for "user:password" (UTF-8), in Node and in browsers alike. */
function basic(userPassword: string): string {
  const bytes = new TextEncoder().encode(userPassword);
  let binary = '';
  for (const byte of bytes) binary += String.fromCharCode(byte);
  return `Basic ${btoa(binary)}`;
}
