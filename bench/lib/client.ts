import { HttpClient } from './http-client.ts';
import { captureBody } from './search-corpus.ts';

const API_KEY = 'bulk-key';

/**
 * The storage benchmark's client: keep-alive node:http (one pooled socket per worker) with the
 * bulk key, which has no daily limit. Lighter on the shared CPU than fetch (undici), which
 * matters when the load generator and the server run on the same two cores.
 */
export class Client extends HttpClient {
  constructor(baseUrl: string, sockets: number) {
    super(baseUrl, sockets, { Authorization: `Api-Key ${API_KEY}` });
  }

  /**
   * Sends capture `n` of the search corpus (to user-<n>@example.com: a subject of a few words, a
   * one-paragraph body) through /v1 and checks it was stored. The corpus's words make searches at
   * full size find what an inbox's would (bench/lib/search-corpus.ts).
   */
  async send(n: number): Promise<void> {
    const reply = await this.post('/v1/email/send/', captureBody(n));
    if (reply.status !== 200 || !/^\{"id":"[A-Za-z0-9]+"\}$/.test(reply.body)) {
      throw new Error(`send ${n}: HTTP ${reply.status} ${reply.body.slice(0, 200)}`);
    }
  }
}
