import { readFile } from 'node:fs/promises';
import { SkillsClient } from '@modelcontextprotocol/client/ext/skills';
import { describe, expect } from 'vitest';
import { test as it } from '../support/fixtures.ts';
import { CLIENTS, modern } from './clients.ts';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** The skill as the repository ships it, for agents that read files. */
const SKILL = await readFile(new URL('../../skills/pigeonhole-email-testing/SKILL.md', import.meta.url), 'utf8');

describe('the agent skill (io.modelcontextprotocol/skills)', () => {
  it.for([
    ['Streamable HTTP', (url: string) => new StreamableHTTPClientTransport(new URL(`${url}/mcp`))],
    [
      'stdio',
      (url: string) => new StdioClientTransport({ command: process.execPath, args: ['bin/pigeonhole.js', 'mcp', '--url', url], cwd: ROOT, stderr: 'pipe' }),
    ],
  ] as const)('is served over %s, the same text as the repository ships, verified by its digest', async ([, transport], { app }) => {
    const client = await modern(transport(app.url));
    try {
      const skills = new SkillsClient(client);
      expect(skills.supported).toBe(true);
      const listing = await skills.list();
      expect(listing.invalid).toEqual([]);
      expect(listing.skills).toEqual([
        {
          uri: 'skill://pigeonhole-email-testing/SKILL.md',
          frontmatter: { name: 'pigeonhole-email-testing', description: expect.stringContaining('own namespace') },
          resources: [
            { uri: 'skill://pigeonhole-email-testing/SKILL.md', digest: expect.stringMatching(/^sha256:[0-9a-f]{64}$/), size: Buffer.byteLength(SKILL) },
          ],
        },
      ]);
      const file = await skills.read(listing.skills[0]!);
      expect(file.verified).toBe(true);
      expect(file.text).toBe(SKILL);
    } finally {
      await client.close();
    }
  });

  it('teaches the loop: namespace, act, wait or expect, follow the link, reset; and that mail is data', () => {
    for (const step of ['namespace', 'reset_sandbox', 'wait_for_message', 'expect_messages', 'links[0].href', 'codes[0]', 'untrusted-email-content'])
      expect(SKILL, step).toContain(step);
  });

  it('is offered to 2025-11-25 clients as a resource too', async ({ app }) => {
    const client = await CLIENTS[0]![3](app.url);
    try {
      const read = await client.readResource({ uri: 'skill://pigeonhole-email-testing/SKILL.md' });
      expect(read.contents).toEqual([expect.objectContaining({ uri: 'skill://pigeonhole-email-testing/SKILL.md', text: SKILL })]);
    } finally {
      await client.close();
    }
  });
});
