import { Agent, request } from 'node:http';

const REQUEST_TIMEOUT_MS = 30_000;
// Idle pooled sockets are closed before the server's keep-alive timeout (Node's default, 5 s)
// can close one under a request being sent.
const IDLE_SOCKET_MS = 4_000;

export interface Reply {
  status: number;
  body: string;
}

/**
 * A keep-alive HTTP client on node:http for the load scripts (lighter on the shared CPU than
 * fetch, as bench/README.md measured for bench/lib/client.ts), for any path and JSON body.
 */
export class HttpClient {
  private readonly agent: Agent;

  constructor(
    private readonly baseUrl: string,
    sockets: number,
    private readonly headers: Record<string, string> = {},
  ) {
    this.agent = new Agent({ keepAlive: true, maxSockets: sockets, timeout: IDLE_SOCKET_MS });
  }

  get(path: string): Promise<Reply> {
    return this.call('GET', path);
  }

  post(path: string, json: unknown): Promise<Reply> {
    return this.call('POST', path, JSON.stringify(json));
  }

  close(): void {
    this.agent.destroy();
  }

  private async call(method: string, path: string, payload?: string): Promise<Reply> {
    try {
      return await this.once(method, path, payload, this.agent);
    } catch (error) {
      // A pooled socket the server closed for idleness fails before the request is read:
      // retry once on a new connection, as Node's documentation advises.
      if (!(error instanceof StaleSocket)) throw error;
      return this.once(method, path, payload, false);
    }
  }

  private once(method: string, path: string, payload: string | undefined, agent: Agent | false): Promise<Reply> {
    const headers: Record<string, string | number> = { ...this.headers };
    if (payload !== undefined) {
      headers['Content-Type'] = 'application/json';
      headers['Content-Length'] = Buffer.byteLength(payload);
    }
    return new Promise((resolve, reject) => {
      const req = request(new URL(path, this.baseUrl), { method, headers, agent }, (res) => {
        let body = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (body += chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
        res.on('error', reject);
      });
      req.setTimeout(REQUEST_TIMEOUT_MS, () => req.destroy(new Error(`${method} ${path}: no answer in ${REQUEST_TIMEOUT_MS / 1000} s`)));
      req.on('error', (error: NodeJS.ErrnoException) => reject(req.reusedSocket && error.code === 'ECONNRESET' ? new StaleSocket() : error));
      req.end(payload);
    });
  }
}

class StaleSocket extends Error {
  constructor() {
    super('a reused keep-alive socket was closed by the server');
  }
}

/** Waits until GET `path` answers 200 (a server that has just printed its listening line). */
export async function firstAnswer(client: HttpClient, path: string, signal: AbortSignal): Promise<void> {
  for (;;) {
    const reply = await client.get(path).catch(() => null);
    if (reply?.status === 200) return;
    signal.throwIfAborted();
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}
