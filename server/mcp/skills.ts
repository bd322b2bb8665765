import path from 'node:path';
import type { SkillCatalog } from '@modelcontextprotocol/server/ext/skills';
import { loadSkills } from '@modelcontextprotocol/server/ext/skills/node';
import { projectRoot } from './project-root.ts';

/**
 * The agent skill for testing email with Pigeonhole (skills/pigeonhole-email-testing/SKILL.md in
 * the repository and the package), served over MCP as the skills extension
 * (`io.modelcontextprotocol/skills`) defines: `skills/list`, `skills/get` and the file as a
 * `skill://` resource. Loaded once per process; attached to each server the factory builds.
 */
let catalog: Promise<SkillCatalog | null> | undefined;

export function skillCatalog(): Promise<SkillCatalog | null> {
  catalog ??= load();
  return catalog;
}

async function load(): Promise<SkillCatalog | null> {
  const root = projectRoot();
  if (root === null) return null;
  return loadSkills(path.join(root, 'skills'), { cacheHint: { ttlMs: 3_600_000, cacheScope: 'public' }, strict: true }).catch(() => null);
}
