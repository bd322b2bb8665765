import { Agent, request } from 'node:http';

const API_KEY = 'bulk-key';
const REQUEST_TIMEOUT_MS = 30_000;
// Idle pooled sockets are closed before the server's keep-alive timeout (Node's default, 5 s)
// can close them under a request that is being sent.
const IDLE_SOCKET_MS = 4_000;

export interface Reply {
  status: number;
  body: string;
}

/**
 * A small HTTP client on node:http with a keep-alive agent: one pooled socket per worker.
 * Lighter on the shared CPU than fetch (undici), which matters when the load generator and
 * the server run on the same two cores.
 */
export class Client {
  private readonly agent: Agent;

  constructor(private readonly baseUrl: string, sockets: number) {
    this.agent = new Agent({ keepAlive: true, maxSockets: sockets, timeout: IDLE_SOCKET_MS });
  }

  /** Sends one email to user-<n>@example.com through /v1 and checks it was stored. */
  async send(n: number): Promise<void> {
    const payload = JSON.stringify({
      recipient: `user-${n}@example.com`,
      subject: `Benchmark capture ${n}`,
      body: `<p>Hello user ${n},</p><p>This is capture number ${n} from the storage benchmark.</p>`,
    });
    const reply = await this.call('POST', '/v1/email/send/', payload);
    if (reply.status !== 200 || !/^\{"id":"[A-Za-z0-9]+"\}$/.test(reply.body)) {
      throw new Error(`send ${n}: HTTP ${reply.status} ${reply.body.slice(0, 200)}`);
    }
  }

  get(path: string): Promise<Reply> {
    return this.call('GET', path);
  }

  /** A JSON POST (no API key needed for the sandbox API; the bench key goes along anyway). */
  post(path: string, json: string): Promise<Reply> {
    return this.call('POST', path, json);
  }

  close(): void {
    this.agent.destroy();
  }

  private async call(method: 'GET' | 'POST', path: string, payload?: string): Promise<Reply> {
    try {
      return await this.once(method, path, payload);
    } catch (error) {
      // A pooled socket the server closed for idleness fails before the request is read (a race
      // the idle timeout above makes rare): retry once on a new connection, as Node's docs advise.
      if (!(error instanceof StaleSocket)) throw error;
      return this.once(method, path, payload, false);
    }
  }

  /** One request, on a pooled socket or (`agent` false) on a new connection of its own. */
  private once(method: 'GET' | 'POST', path: string, payload?: string, agent: Agent | false = this.agent): Promise<Reply> {
    const headers: Record<string, string | number> = { Authorization: `Api-Key ${API_KEY}` };
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
      req.setTimeout(REQUEST_TIMEOUT_MS, () => req.destroy(new Error(`${method} ${path}: no answer in ${REQUEST_TIMEOUT_MS} ms`)));
      req.on('error', (error: NodeJS.ErrnoException) => {
        reject(req.reusedSocket && error.code === 'ECONNRESET' ? new StaleSocket() : error);
      });
      req.end(payload);
    });
  }
}

class StaleSocket extends Error {
  constructor() {
    super('a reused keep-alive socket was closed by the server');
  }
}
