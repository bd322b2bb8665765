import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

export interface ServerProcess {
  url: string;
  port: number;
  /** The SMTP capture's port. */
  smtpPort: number;
  child: ChildProcess;
  output: () => string;
  /** Sends a signal and waits for the process to exit; resolves with its exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export interface SpawnOptions {
  dataDir: string;
  configFile?: string;
  args?: string[];
  env?: Record<string, string>;
  /** Run the built dist/server/main.js (what `npm start` runs) instead of the sources through tsx. */
  compiled?: boolean;
  /** Run as this uid and gid (root only: `setpriv`), as a container run as uid 1000 does. */
  asUser?: number;
}

/**
 * Starts the real server as its own process on a free port and resolves once it listens:
 * the sources through tsx, or the build that `npm start` runs.
 */
export async function spawnServer(options: SpawnOptions): Promise<ServerProcess> {
  const entry = options.compiled ? ['dist/server/main.js'] : ['--import', 'tsx', 'server/main.ts'];
  // SMTP on a free port too, so servers started side by side never fight over 1025.
  const args = [...entry, '--http-port', '0', '--smtp-port', '0', '--data-dir', options.dataDir, ...(options.args ?? [])];
  if (options.configFile) args.push('--config', options.configFile);
  const command =
    options.asUser === undefined
      ? [process.execPath, ...args]
      : ['setpriv', `--reuid=${options.asUser}`, `--regid=${options.asUser}`, '--clear-groups', process.execPath, ...args];
  const child = spawn(command[0]!, command.slice(1), { cwd: ROOT, env: { ...process.env, ...options.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const [port, smtpPort] = await new Promise<[number, number]>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`server did not start in 20 s:\n${output}`)), 20_000);
    const onData = () => {
      const match = /listening on http:\/\/[^:]+:(\d+)/.exec(output);
      const smtp = /SMTP capture: +smtps?:\/\/[^:]+:(\d+)/.exec(output);
      if (match && smtp) {
        clearTimeout(timer);
        child.stdout!.off('data', onData);
        resolve([Number(match[1]), Number(smtp[1])]);
      }
    };
    child.stdout!.on('data', onData);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited with ${code} before listening:\n${output}`));
    });
  });
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    smtpPort,
    child,
    output: () => output,
    async stop(signal = 'SIGTERM') {
      if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
      const exited = once(child, 'exit');
      child.kill(signal);
      const [code] = (await exited) as [number | null];
      return code;
    },
  };
}
