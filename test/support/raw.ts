import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import WebSocket from 'ws';

export interface RawResponse {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  /** The parsed JSON body, or null when the body is empty or not JSON. */
  body: any;
}

/** A request with exactly the headers given, `Host` and `Origin` included (fetch would set or refuse them). */
export function raw(url: string, options: { method?: string; headers?: Record<string, string>; body?: string | Buffer } = {}): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method: options.method ?? 'GET', headers: options.headers ?? {} }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let body: unknown = null;
        try {
          body = text === '' ? null : JSON.parse(text);
        } catch {
          body = null;
        }
        resolve({ status: res.statusCode!, headers: res.headers, text, body });
      });
    });
    req.on('error', reject);
    req.end(options.body);
  });
}

/** The headers Chromium sends with a page's fetch (as captured from Debian's chromium). */
export const CHROMIUM_HEADERS = {
  'User-Agent': 'Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36 (KHTML, like Gecko) HeadlessChrome/156.0.0.0 Safari/537.36',
  Accept: '*/*',
  'Accept-Language': 'en-US,en;q=0.9',
};

export type UpgradeOutcome =
  | { opened: true; frames: string[] }
  | { opened: false; status: number; headers: IncomingHttpHeaders; text: string; frames: string[] };

/**
 * Tries the live push's upgrade with the given headers: either it opens (and the first frame
 * is awaited, then the socket closed) or the server's HTTP answer to the upgrade is returned,
 * with any frames received (there must be none).
 */
export function tryUpgrade(url: string, headers: Record<string, string> = {}, origin?: string): Promise<UpgradeOutcome> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, { headers, ...(origin === undefined ? {} : { origin }) });
    const frames: string[] = [];
    ws.on('message', (data) => {
      frames.push(String(data));
      ws.close();
    });
    ws.on('close', () => resolve({ opened: true, frames }));
    ws.on('unexpected-response', (_req, res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => resolve({ opened: false, status: res.statusCode!, headers: res.headers, text: Buffer.concat(chunks).toString('utf8'), frames }));
    });
    ws.on('error', (error) => {
      if (!/Unexpected server response/.test(error.message)) reject(error);
    });
  });
}
