import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A local site for the link check: redirects, a 404, a page that never answers, a server that
 * refuses HEAD, a redirect loop and one to ftp:. It records every request and the most
 * requests it had in flight at once.
 */
export interface LinkSite {
  url: string;
  requests: { method: string; path: string }[];
  maxInFlight: number;
  close(): Promise<void>;
}

/** The site on `host` (default 127.0.0.1; any 127.x address is this machine too). */
export async function startLinkSite(host = '127.0.0.1'): Promise<LinkSite> {
  const site = { requests: [] as { method: string; path: string }[], maxInFlight: 0 } as LinkSite;
  let inFlight = 0;
  const hanging = new Set<ServerResponse>();
  const server: Server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const path = req.url ?? '/';
    site.requests.push({ method: req.method ?? '', path });
    inFlight++;
    site.maxInFlight = Math.max(site.maxInFlight, inFlight);
    res.on('close', () => inFlight--);
    const slow = /^\/slow\/(\d+)/.exec(path);
    if (path === '/ok' || path.startsWith('/ok?')) return res.end('fine');
    if (path === '/image.png') {
      res.setHeader('Content-Type', 'image/png');
      return res.end(Buffer.alloc(10));
    }
    if (path === '/moved') return redirect(res, 301, '/moved-again');
    if (path === '/moved-again') return redirect(res, 302, `${site.url}/ok`);
    if (path === '/see-other') return redirect(res, 303, '/ok');
    if (path.startsWith('/loop/')) return redirect(res, 302, `/loop/${Number(path.slice(6)) + 1}`);
    if (path === '/to-ftp') return redirect(res, 302, 'ftp://files.example/x');
    if (path.startsWith('/to?')) return redirect(res, 302, decodeURIComponent(path.slice(4)));
    if (path === '/missing') {
      res.statusCode = 404;
      return res.end('not here');
    }
    if (path === '/no-head') {
      if (req.method === 'HEAD') {
        res.statusCode = 405;
        return res.end();
      }
      return res.end('GET works');
    }
    if (path === '/never') {
      hanging.add(res);
      return;
    }
    if (slow) {
      // Slow on purpose: the link check's timeout is what the test measures.
      setTimeout(() => res.end('slowly'), Number(slow[1]));
      return;
    }
    res.statusCode = 500;
    res.end();
  });
  await new Promise<void>((resolve) => server.listen(0, host, resolve));
  site.url = `http://${host}:${(server.address() as AddressInfo).port}`;
  site.close = async () => {
    for (const res of hanging) res.destroy();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  };
  return site;
}

function redirect(res: ServerResponse, status: number, location: string): void {
  res.statusCode = status;
  res.setHeader('Location', location);
  res.end();
}
