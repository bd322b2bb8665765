import type { AddressInfo } from 'node:net';
import { parseArgs } from 'node:util';
import { createBareSmtp } from './bare-smtp.ts';

// node --import tsx bench/lib/bare-smtp-main.ts [--port N] [--host H]: the bare SMTP server
// (bare-smtp.ts) on its own; prints the port it listens on, stops on SIGTERM or Ctrl-C.
const { values } = parseArgs({ options: { port: { type: 'string', default: '0' }, host: { type: 'string', default: '127.0.0.1' } } });
const server = createBareSmtp();
server.on('error', (error) => console.error('bare SMTP error:', error.message));
server.listen(Number(values.port), values.host, () => {
  const { port } = server.server.address() as AddressInfo;
  console.log(`bare SMTP listening on ${values.host}:${port}`);
});
const stop = () => server.close(() => process.exit(0));
process.once('SIGTERM', stop);
process.once('SIGINT', stop);
