import { expect } from 'vitest';
import { test } from '../support/fixtures.ts';

test('the start-up banner names the watched template folder and the release relay with what it may reach', async ({ serverProcess }) => {
  const templates = await serverProcess.tempDir('pigeonhole-banner-templates-');
  const server = await serverProcess.spawn({
    dataDir: await serverProcess.tempDir('pigeonhole-banner-'),
    args: ['--templates', templates, '--relay', 'smtp://me:secret@127.0.0.1:2525', '--relay-allow', '*@example.com', '--relay-allow', 'qa@example.org'],
  });
  await expect.poll(() => server.output()).toContain('  release relay:');
  const lines = server.output().split('\n');
  expect(lines.filter((line) => line.startsWith('  templates:') || line.startsWith('  release relay:'))).toEqual([
    `  templates:      ${templates} (watched)`,
    '  release relay:  smtp://127.0.0.1:2525, on request only, to *@example.com, qa@example.org',
  ]);
  expect(server.output()).not.toContain('secret');
});
