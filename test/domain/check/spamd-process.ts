import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from '../../support/ports.ts';

export interface Spamd {
  host: string;
  port: number;
  stop(): Promise<void>;
}

/**
 * Debian's spamd on a free port of 127.0.0.1, offline: --local skips the network tests (DNS
 * blocklists, Razor, Pyzor) and the rules are the ones the package ships (no sa-update). As
 * root it must drop to another user (--username). Resolves once it says it has started.
 */
export async function startSpamd(): Promise<Spamd> {
  const port = await freePort();
  const dir = await mkdtemp(path.join(tmpdir(), 'pigeonhole-spamd-'));
  const args = [
    '--listen=127.0.0.1',
    `--port=${port}`,
    '--local',
    '--nouser-config',
    '--max-children=1',
    '--min-children=1',
    '--syslog=stderr',
    `--pidfile=${path.join(dir, 'spamd.pid')}`,
    ...(process.getuid?.() === 0 ? ['--username=nobody'] : []),
  ];
  const child: ChildProcess = spawn('spamd', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  let output = '';
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`spamd did not start within 60 s:\n${output}`)), 60_000);
    child.once('error', (error) => reject(new Error(`spamd could not be started (apt-get install spamd spamassassin): ${error.message}`)));
    void exited.then((code) => reject(new Error(`spamd exited with ${code}:\n${output}`)));
    const started = () => {
      if (!/server started on/.test(output)) return;
      clearTimeout(timer);
      child.stderr!.off('data', started);
      resolve();
    };
    child.stderr!.on('data', started);
  });
  return {
    host: '127.0.0.1',
    port,
    async stop() {
      if (child.exitCode === null) {
        child.kill('SIGTERM');
        await exited;
      }
      await rm(dir, { recursive: true, force: true });
    },
  };
}
