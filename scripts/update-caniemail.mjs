#!/usr/bin/env node
// Regenerates server/domain/check/caniemail-data.json from the caniemail npm package.
//
//   node scripts/update-caniemail.mjs            # the latest published version
//   node scripts/update-caniemail.mjs 2.0.2      # a given version
//
// The package is only fetched here, with `npm pack` into a temporary folder: Pigeonhole does
// not depend on it (it pulls ~31 MB of dependencies the sandbox does not need) and reads no
// network at run time. Only what the check uses is kept: each feature's slug, title, category,
// caniemail.com page, support per client family, platform and tested version, and its numbered
// notes; plus the clients' display names, the data's own date and the licence.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const version = process.argv[2] ?? 'latest';
const target = fileURLToPath(new URL('../server/domain/check/', import.meta.url));
const work = mkdtempSync(path.join(tmpdir(), 'caniemail-'));
try {
  const tarball = execFileSync('npm', ['pack', `caniemail@${version}`, '--silent'], { cwd: work, encoding: 'utf8' })
    .trim()
    .split('\n')
    .pop();
  execFileSync('tar', ['-xzf', tarball], { cwd: work });
  const pkg = JSON.parse(readFileSync(path.join(work, 'package/package.json'), 'utf8'));
  const source = JSON.parse(readFileSync(path.join(work, 'package/data/caniemail.json'), 'utf8'));
  const features = {};
  for (const f of [...source.data].sort((a, b) => a.slug.localeCompare(b.slug))) {
    features[f.slug] = { title: f.title, category: f.category, url: f.url, stats: f.stats, notes: f.notes_by_num ?? {} };
  }
  const data = {
    source: { package: 'caniemail', version: pkg.version, license: pkg.license, data_date: source.last_update_date, api_version: source.api_version },
    nicenames: { family: source.nicenames.family, platform: source.nicenames.platform },
    features,
  };
  writeFileSync(path.join(target, 'caniemail-data.json'), `${JSON.stringify(data)}\n`);
  writeFileSync(path.join(target, 'caniemail-LICENSE'), readFileSync(path.join(work, 'package/LICENSE'), 'utf8'));
  console.log(`caniemail ${pkg.version}: ${Object.keys(features).length} features, data of ${source.last_update_date}`);
} finally {
  rmSync(work, { recursive: true, force: true });
}
