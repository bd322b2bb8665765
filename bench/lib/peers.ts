import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { log } from './cli.ts';
import { ROOT } from './server-process.ts';

/** bench/peers: MailDev and autocannon, with their own package.json and lockfile. */
const PEERS_DIR = path.join(ROOT, 'bench', 'peers');
/** MailDev's command-line entry. */
export const MAILDEV_BIN = path.join(PEERS_DIR, 'node_modules', 'maildev', 'bin', 'maildev');

/** Installs bench/peers from its lockfile (`npm ci --prefix bench/peers`) when it is not installed yet. */
export function ensurePeers(): void {
  const installed = ['maildev', 'autocannon'].every((name) => existsSync(path.join(PEERS_DIR, 'node_modules', name, 'package.json')));
  if (installed) return;
  log('bench/peers is not installed: npm ci --prefix bench/peers');
  execFileSync('npm', ['ci', '--prefix', PEERS_DIR, '--no-audit', '--no-fund'], { cwd: ROOT, stdio: 'inherit' });
}

/** Loads a CommonJS package installed in bench/peers. */
export function requirePeer<T>(name: string): T {
  return createRequire(path.join(PEERS_DIR, 'package.json'))(name) as T;
}
