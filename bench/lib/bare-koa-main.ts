import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { createBareKoa } from './bare-koa.ts';

// node --import tsx bench/lib/bare-koa-main.ts [--port N] [--host H]: the bare Koa server
// (bare-koa.ts) on its own; prints the address it listens on, stops on SIGTERM or Ctrl-C.
const { values } = parseArgs({ options: { port: { type: 'string', default: '0' }, host: { type: 'string', default: '127.0.0.1' } } });
// The whole app is built before the server takes its callback (docs/architecture.md, Machine facts: Koa).
const server = createServer(createBareKoa().callback());
server.listen(Number(values.port), values.host, () => {
  const { port } = server.address() as AddressInfo;
  console.log(`bare Koa listening on http://${values.host}:${port}`);
});
const stop = () => {
  server.close(() => process.exit(0));
  server.closeAllConnections();
};
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
