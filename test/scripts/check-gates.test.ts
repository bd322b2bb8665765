import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';

// The gates of `npm run check` (docs/architecture.md, "Working on Pigeonhole"): each one is run on
// a small tree that breaks its rules, and must fail naming each break.
const ROOT = path.resolve(import.meta.dirname, '../..');
const LAYERS = path.join(ROOT, 'scripts/check-layers.mjs');
const BIOME = path.join(ROOT, 'node_modules/.bin/biome');
const KNIP = path.join(ROOT, 'node_modules/.bin/knip');

const trees: string[] = [];
afterEach(() => {
  for (const dir of trees.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A temporary tree of the given files (path → text). */
function tree(files: Record<string, string>): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'pigeonhole-gates-'));
  trees.push(dir);
  for (const [file, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(dir, file)), { recursive: true });
    writeFileSync(path.join(dir, file), text);
  }
  return dir;
}

function run(command: string, args: string[], cwd = ROOT) {
  const result = spawnSync(command, args, { cwd, encoding: 'utf8', env: { ...process.env, NO_COLOR: '1', CI: '' } });
  return { status: result.status, stdout: result.stdout, stderr: result.stderr };
}

describe('the layering check (scripts/check-layers.mjs)', () => {
  it('passes on this repository', () => {
    const { status, stdout, stderr } = run(process.execPath, [LAYERS]);
    expect(stderr).toBe('');
    expect(status).toBe(0);
    expect(stdout).toMatch(/^layers: \d+ imports in \d+ files keep the layering\n$/);
  });

  it('names every import that breaks a rule, with its line and reason, and exits 1', () => {
    const dir = tree({
      'server/http/route.ts': 'export const route = 1;\n',
      'server/storage/store.ts': "import { ingest } from '../domain/ingest.ts';\nexport const store = ingest;\n",
      'server/domain/ingest.ts': [
        "import type { Context } from 'koa';",
        "import { route } from '../http/route.ts';",
        "export { frame } from '../realtime/push.ts';",
        "export const ingest = async () => (await import('../pigeonhole.ts')).start(route);",
        'export type Ctx = Context;',
        '',
      ].join('\n'),
      'server/realtime/push.ts': "import { WebSocket } from 'ws';\nimport { route } from '../http/route.ts';\nexport const frame = [WebSocket, route];\n",
      'server/smtp/parse.ts': "import { WebSocket } from 'ws';\nexport const parse = WebSocket;\n",
      'server/pigeonhole.ts': "import { simpleParser } from 'mailparser';\nexport const start = simpleParser;\n",
      'bench/storage.ts': "import { startApp } from '../test/support/app.ts';\nstartApp();\n",
      'test/support/app.ts': 'export function startApp() {}\n',
      'ui/src/api.ts':
        "import type { Capture } from '../../client/pigeonhole-client.ts';\nimport { store } from '../../server/storage/store.ts';\nexport type C = Capture;\nexport const s = store;\n",
      'client/pigeonhole-client.ts': "import { z } from 'zod';\nexport interface Capture { id: string }\nexport const schema = z;\n",
    });
    const { status, stdout, stderr } = run(process.execPath, [LAYERS, dir]);
    expect(stdout).toBe('');
    expect(status).toBe(1);
    expect(stderr).toMatchInlineSnapshot(`
      "bench/storage.ts:1 imports test/support/app.ts: benchmarks never depend on the tests (docs/architecture.md)
      client/pigeonhole-client.ts:1 imports zod: the typed client (its calls and its generated wire types) depends on nothing outside client/ (docs/architecture.md)
      server/domain/ingest.ts:1 imports koa: Koa, ws, smtp-server and mailparser stay in the edge that uses them; the domain and storage never see their types (docs/architecture.md)
      server/domain/ingest.ts:2 imports server/http/route.ts: the domain never depends on the HTTP edge (docs/architecture.md)
      server/domain/ingest.ts:3 imports server/realtime/push.ts: the domain never depends on the live push; the live push subscribes to its events (docs/architecture.md)
      server/domain/ingest.ts:4 imports server/pigeonhole.ts: the domain never depends on the composition root (docs/architecture.md)
      server/pigeonhole.ts:1 imports mailparser: smtp-server and mailparser (and the MIME libraries under it) are used only in the SMTP folder (docs/architecture.md)
      server/realtime/push.ts:2 imports server/http/route.ts: the live push never depends on the HTTP edge (docs/architecture.md)
      server/smtp/parse.ts:1 imports ws: ws is used only in the realtime folder (docs/architecture.md)
      server/storage/store.ts:1 imports server/domain/ingest.ts: storage is the bottom layer: it never depends on the domain or anything above it (docs/architecture.md)
      ui/src/api.ts:2 imports server/storage/store.ts: the UI shares only the typed client's wire types (client/pigeonhole-client.ts) and the dependency-free preview policy, colour modes and file names (server/domain/mail/preview-policy.ts, color-mode.ts, file-name.ts) with the rest of the repository (docs/architecture.md)
      layers: 11 problems: imports that break the layering, folders or files in a circle, or files too long
      "
    `);
  });

  it('names sibling folders that import each other in a circle, however long, with an import of each step', () => {
    const dir = tree({
      'server/domain/flows/engine.ts': "import { send } from '../messages/send.ts';\nexport const engine = send;\n",
      'server/domain/messages/send.ts': "import { block } from '../toolkit/blocks.ts';\nexport const send = block;\n",
      'server/domain/toolkit/blocks.ts': "import { config } from '../directory/config.ts';\nexport const block = config;\n",
      'server/domain/directory/config.ts': "import type { Engine } from '../flows/types/engine.ts';\nexport const config = 1 as unknown as Engine;\n",
      'server/domain/flows/types/engine.ts': 'export type Engine = number;\n',
      // A folder and the folders in it may use each other, and a one-way pair is no circle.
      'server/domain/sandbox.ts': "import { engine } from './flows/engine.ts';\nexport const sandbox = engine;\n",
      'server/domain/flows/clock.ts': "import { sandbox } from '../sandbox.ts';\nexport const clock = sandbox;\n",
      'server/http/v1/routes.ts': "import { docs } from '../openapi/docs.ts';\nexport const routes = docs;\n",
      'server/http/openapi/docs.ts': 'export const docs = 1;\n',
    });
    const { status, stdout, stderr } = run(process.execPath, [LAYERS, dir]);
    expect(stdout).toBe('');
    expect(stderr).toBe(
      'folders server/domain/directory, server/domain/flows, server/domain/messages, server/domain/toolkit import each other in a circle (' +
        'server/domain/directory/config.ts:1 imports server/domain/flows/types/engine.ts; server/domain/flows/engine.ts:1 imports server/domain/messages/send.ts; ' +
        'server/domain/messages/send.ts:1 imports server/domain/toolkit/blocks.ts; server/domain/toolkit/blocks.ts:1 imports server/domain/directory/config.ts' +
        '): sibling folders depend one way (docs/architecture.md)\n' +
        'layers: 1 problem: imports that break the layering, folders or files in a circle, or files too long\n',
    );
    expect(status).toBe(1);
  });

  it('names files that import each other in a circle, type-only imports and re-exports included, in server/, ui/ and client/', () => {
    const dir = tree({
      // Three files of one folder, closed by a type-only import.
      'server/http/route-row.ts': "import type { Doc } from './route-doc.ts';\nexport type Row = { doc: Doc };\n",
      'server/http/route-doc.ts': "export { Shape as Doc } from './shape.ts';\n",
      'server/http/shape.ts': "import type { Row } from './route-row.ts';\nexport type Shape = Row[];\n",
      // Two files of the UI that import each other only for types.
      'ui/src/a.ts': "import type { B } from './b.ts';\nexport type A = B | 1;\n",
      'ui/src/b.ts': "import type { A } from './a.ts';\nexport type B = A | 2;\n",
      // One way, and a file that names itself: no circle.
      'client/calls.ts': "import type { Wire } from './wire-types.ts';\nexport type Call = Wire;\n",
      'client/wire-types.ts': "export type Wire = string;\nexport type Self = import('./wire-types.ts').Wire;\n",
      // Outside shipped code a circle is not this gate's to find.
      'test/x.ts': "import { y } from './y.ts';\nexport const x = y;\n",
      'test/y.ts': "import { x } from './x.ts';\nexport const y = x;\n",
    });
    const { status, stdout, stderr } = run(process.execPath, [LAYERS, dir]);
    expect(stdout).toBe('');
    expect(stderr).toBe(
      'files server/http/route-doc.ts, server/http/route-row.ts, server/http/shape.ts import each other in a circle (' +
        'server/http/route-doc.ts:1 imports server/http/shape.ts; server/http/route-row.ts:1 imports server/http/route-doc.ts; ' +
        'server/http/shape.ts:1 imports server/http/route-row.ts): files depend one way, type-only imports too (docs/architecture.md)\n' +
        'files ui/src/a.ts, ui/src/b.ts import each other in a circle (ui/src/a.ts:1 imports ui/src/b.ts; ui/src/b.ts:1 imports ui/src/a.ts): ' +
        'files depend one way, type-only imports too (docs/architecture.md)\n' +
        'layers: 2 problems: imports that break the layering, folders or files in a circle, or files too long\n',
    );
    expect(status).toBe(1);
  });

  it('names each file of shipped code over 400 lines, generated files and code that does not ship aside', () => {
    const lines = (n: number) => Array.from({ length: n }, (_, i) => `export const v${i} = ${i};\n`).join('');
    const dir = tree({
      'server/http/long.ts': lines(401),
      'ui/src/at-limit.ts': lines(400),
      'client/calls.ts': lines(450),
      'client/wire-types.ts': lines(900),
      'test/long.test.ts': lines(900),
    });
    const { status, stdout, stderr } = run(process.execPath, [LAYERS, dir]);
    expect(stdout).toBe('');
    expect(stderr).toBe(
      'client/calls.ts has 450 lines, more than 400: split it by meaning (docs/architecture.md)\n' +
        'server/http/long.ts has 401 lines, more than 400: split it by meaning (docs/architecture.md)\n' +
        'layers: 2 problems: imports that break the layering, folders or files in a circle, or files too long\n',
    );
    expect(status).toBe(1);
  });

  it("fails on an import of a storage-internal file from the domain or an edge, and lets storage's public files through", () => {
    const dir = tree({
      'server/storage/store.ts': "import { PackStore } from './pack-store.ts';\nexport const store = PackStore;\n",
      'server/storage/pack-store.ts': 'export class PackStore {}\n',
      'server/storage/segment-log.ts': 'export class SegmentLog {}\n',
      'server/storage/records.ts': 'export type MessageRecord = { seq: number };\n',
      'server/domain/ingest.ts': [
        "import { store } from '../storage/store.ts';",
        "import type { MessageRecord } from '../storage/records.ts';",
        "import { PackStore } from '../storage/pack-store.ts';",
        'export const ingest = [store, PackStore] as unknown as MessageRecord;',
        '',
      ].join('\n'),
      'server/http/route.ts': "export { SegmentLog } from '../storage/segment-log.ts';\n",
      'server/pigeonhole.ts': "import { SegmentLog } from './storage/segment-log.ts';\nexport const start = SegmentLog;\n",
    });
    const { status, stdout, stderr } = run(process.execPath, [LAYERS, dir]);
    expect(stdout).toBe('');
    expect(status).toBe(1);
    expect(stderr).toMatchInlineSnapshot(`
      "server/domain/ingest.ts:3 imports server/storage/pack-store.ts: the domain and the edges import only storage's public files (store.ts, capture-store.ts, records.ts, errors.ts, namespace.ts); the rest of server/storage/ is storage's own (docs/architecture.md)
      server/http/route.ts:1 imports server/storage/segment-log.ts: the domain and the edges import only storage's public files (store.ts, capture-store.ts, records.ts, errors.ts, namespace.ts); the rest of server/storage/ is storage's own (docs/architecture.md)
      layers: 2 problems: imports that break the layering, folders or files in a circle, or files too long
      "
    `);
  });

  it('lets the allowed directions through', () => {
    const dir = tree({
      'server/storage/store.ts': "import { readFile } from 'node:fs/promises';\nexport const store = readFile;\n",
      'server/domain/ingest.ts': "import { store } from '../storage/store.ts';\nexport const ingest = store;\n",
      'server/http/route.ts':
        "import type { Context } from 'koa';\nimport { ingest } from '../domain/ingest.ts';\nexport const route = (ctx: Context) => ingest;\n",
      'server/realtime/push.ts': "import { WebSocket } from 'ws';\nimport { ingest } from '../domain/ingest.ts';\nexport const push = [WebSocket, ingest];\n",
      'server/smtp/parse.ts':
        "import { simpleParser } from 'mailparser';\nexport const parse = async () => (await import('../domain/ingest.ts')).ingest ?? simpleParser;\n",
      'bench/storage.ts': "import { store } from '../server/storage/store.ts';\nconsole.log(store);\n",
      'test/storage.test.ts': "import { store } from '../server/storage/store.ts';\nimport { run } from '../bench/storage.ts';\nconsole.log(store, run);\n",
      'ui/src/api.ts':
        "import type { Capture } from '../../client/pigeonhole-client.ts';\nimport { h } from 'preact';\nexport type C = Capture;\nexport const x = h;\n",
      'client/pigeonhole-client.ts': 'export interface Capture { id: string }\n',
    });
    const { status, stdout, stderr } = run(process.execPath, [LAYERS, dir]);
    expect(stderr).toBe('');
    expect(stdout).toBe('layers: 13 imports in 9 files keep the layering\n');
    expect(status).toBe(0);
  });
});

describe('the storage floor plan (scripts/check-layers.mjs, storageFloor)', () => {
  it('names every import against the layer order inside storage, and every import circle there, type-only ones too', () => {
    const dir = tree({
      'server/storage/errors.ts': 'export class StorageError extends Error {}\n',
      'server/storage/records.ts': "import type { Ref } from './packs/pack.ts';\nexport type Rec = { ref: Ref };\n",
      'server/storage/store.ts': "import { index } from './indexes/index.ts';\nexport const store = index;\n",
      // Allowed: an index uses the vocabulary on top and the disk below it.
      'server/storage/indexes/index.ts':
        "import { StorageError } from '../errors.ts';\nimport type { Rec } from '../records.ts';\nimport { fs } from '../disk/fs.ts';\nexport const index = [StorageError, fs] as unknown as Rec;\n",
      'server/storage/disk/fs.ts': "import type { Ref } from '../packs/pack.ts';\nexport const fs = 1 as Ref;\n",
      'server/storage/packs/pack.ts': 'export type Ref = number;\n',
      'server/storage/segments/log.ts':
        "import type { Write } from './write.ts';\nimport { store } from '../store.ts';\nimport type { Ref } from '../packs/pack.ts';\nexport const log = (w: Write, r: Ref) => [w, r, store];\n",
      'server/storage/segments/write.ts': "import type { log } from './log.ts';\nexport type Write = typeof log;\n",
      'server/storage/cache/lru.ts': 'export const lru = 1;\n',
    });
    const { status, stdout, stderr } = run(process.execPath, [LAYERS, dir]);
    expect(stdout).toBe('');
    expect(status).toBe(1);
    expect(stderr).toMatchInlineSnapshot(`
      "files server/storage/segments/log.ts, server/storage/segments/write.ts import each other in a circle (server/storage/segments/log.ts:1 imports server/storage/segments/write.ts; server/storage/segments/write.ts:1 imports server/storage/segments/log.ts): files depend one way, type-only imports too (docs/architecture.md)
      server/storage/cache/lru.ts: server/storage/cache/ is not in the storage floor plan (disk < packs, segments < indexes, migrate) (docs/architecture.md)
      server/storage/disk/fs.ts:1 imports server/storage/packs/pack.ts: in storage, disk/ imports only the layers below it (disk < packs, segments < indexes, migrate) (docs/architecture.md)
      server/storage/segments/log.ts:2 imports server/storage/store.ts: a storage sub-folder uses only the vocabulary of the top (errors.ts, records.ts, namespace.ts), never the store above it (docs/architecture.md)
      server/storage/segments/log.ts:3 imports server/storage/packs/pack.ts: in storage, segments/ imports only the layers below it (disk < packs, segments < indexes, migrate) (docs/architecture.md)
      layers: 5 problems: imports that break the layering, folders or files in a circle, or files too long
      "
    `);
  });
});

describe("Biome with this repository's biome.json", () => {
  it('fails on an import cycle, an unused import and an unused variable', () => {
    const dir = tree({
      'biome.json': JSON.stringify({ root: true, extends: [path.join(ROOT, 'biome.json')], vcs: { enabled: false } }),
      'server/a.ts': "import { b } from './b.ts';\nexport const a = () => b();\n",
      'server/b.ts': "import { a } from './a.ts';\nexport const b = () => a();\n",
      'server/c.ts': "import { readFileSync } from 'node:fs';\nexport const c = () => {\n  const unused = 1;\n  return 2;\n};\n",
    });
    const { status, stdout } = run(BIOME, ['lint', '--reporter=github', '.'], dir);
    const found = [...stdout.matchAll(/title=lint\/([\w/]+),file=([^,]+),line=(\d+)/g)].map(
      ([, rule, file, line]) => `${path.relative(dir, file!)}:${line} ${rule}`,
    );
    expect(found.sort()).toEqual([
      'server/a.ts:1 suspicious/noImportCycles',
      'server/b.ts:1 suspicious/noImportCycles',
      'server/c.ts:1 correctness/noUnusedImports',
      'server/c.ts:3 correctness/noUnusedVariables',
    ]);
    expect(status).toBe(1);
  });
});

describe("knip with this repository's knip.json", () => {
  it('fails on an unused export and an unused file', () => {
    const dir = tree({
      'package.json': JSON.stringify({ name: 'gates-fixture', private: true, type: 'module' }),
      'knip.json': JSON.stringify({ ...JSON.parse(readFileSync(path.join(ROOT, 'knip.json'), 'utf8')), $schema: undefined }),
      'scripts/tool.mjs': "import { used } from '../server/lib.ts';\nconsole.log(used);\n",
      'server/lib.ts': 'export const used = 1;\nexport const unused = 2;\n',
      'server/orphan.ts': 'export const orphan = 3;\n',
    });
    const { status, stdout } = run(KNIP, ['--no-progress', '--reporter', 'json'], dir);
    const issues = (JSON.parse(stdout) as { issues: { file: string; files: unknown[]; exports: { name: string }[] }[] }).issues;
    expect(issues.flatMap((i) => [...i.files.map(() => `unused file ${i.file}`), ...i.exports.map((e) => `unused export ${i.file} ${e.name}`)]).sort()).toEqual(
      ['unused export server/lib.ts unused', 'unused file server/orphan.ts'],
    );
    expect(status).toBe(1);
  });
});
