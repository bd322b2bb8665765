import { readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect } from 'vitest';
import { SAMPLE_CONFIG } from '../server/config.ts';
import { sampleKeysWarning } from '../server/start-messages.ts';
import { test as it } from './support/fixtures.ts';

const WARNING = [
  "WARNING: Pigeonhole listens on 0.0.0.0, which other machines can reach, with the sample configuration's public API keys: test-key, dev-key, bulk-key, noflows-key.",
  "  Anyone who can reach this port and knows them (they are in the README) reads and sends every team's mail through /v1, login or not.",
  '  Give your own keys with --config FILE (PIGEONHOLE_CONFIG), or listen on this machine only: --host 127.0.0.1.',
].join('\n');

/** Issue 19: the sample configuration's public keys served where other machines reach them are announced loudly at start. */
describe('the sample keys on an address other machines can reach', () => {
  it('the real server on 0.0.0.0 with the sample configuration warns, and still starts (the Docker image runs so)', async ({ serverProcess }) => {
    const server = await serverProcess.spawn({ dataDir: await serverProcess.tempDir('pigeonhole-warn-'), args: ['--host', '0.0.0.0'] });
    await expect.poll(() => server.output()).toContain('WARNING');
    expect(server.output()).toContain(`${WARNING}\n`);
    expect((await fetch(`${server.url}/livez`)).status).toBe(200);
  });

  it('says nothing with keys of your own on 0.0.0.0', async ({ serverProcess }) => {
    const dir = await serverProcess.tempDir('pigeonhole-own-keys-');
    const own = path.join(dir, 'config.json');
    await writeFile(own, (await readFile(SAMPLE_CONFIG, 'utf8')).replace(/"apiKey": "([\w-]+)"/g, '"apiKey": "private-$1-7f3a9c"'));
    const server = await serverProcess.spawn({ dataDir: path.join(dir, 'data'), configFile: own, args: ['--host', '0.0.0.0'] });
    await expect.poll(() => server.output()).toContain('API keys:');
    expect(server.output()).toContain('API keys:       private-test-key-7f3a9c (Acme)');
    expect(server.output()).not.toContain('WARNING');
  });

  it('names only the sample keys still in use, and says nothing on a loopback address', () => {
    const sample = ['test-key', 'dev-key'];
    expect(sampleKeysWarning('192.168.1.20', ['mine', 'dev-key'], sample)?.split('\n')[0]).toBe(
      "WARNING: Pigeonhole listens on 192.168.1.20, which other machines can reach, with the sample configuration's public API keys: dev-key.",
    );
    expect(sampleKeysWarning('::', sample, sample)).not.toBeNull();
    for (const host of ['127.0.0.1', '127.0.0.2', 'localhost', '::1', '[::1]']) expect([host, sampleKeysWarning(host, sample, sample)]).toEqual([host, null]);
  });
});
