#!/usr/bin/env node
// The import direction of docs/architecture.md ("Layout"), as a rule: every import of every
// source file (static, type-only, `export ... from` and literal `import()`) is checked against
// the table below, and each one that crosses a layer the wrong way is named with the reason.
// Usage: node scripts/check-layers.mjs [ROOT]   (ROOT defaults to this repository)
// It also finds sibling folders of shipped code (server/, ui/, client/) that import each other
// in a circle, however long, and files of shipped code that do (type-only imports count: a
// circle of types is still two files that cannot be read one before the other). Exits 1 when an
// import breaks a rule or folders or files form a circle, and when a file of shipped code is
// over 400 lines (generated files aside); unused code is knip's to find.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseSync } from 'oxc-parser';

const SOURCE = /\.(ts|tsx|mts|cts|js|mjs|cjs)$/;
const SKIP_DIRS = new Set(['node_modules', 'dist', '.git', 'fixtures', 'test-artifacts', 'data', 'coverage']);
const SKIP_PATHS = new Set(['bench/peers']);
const DOC = '(docs/architecture.md)';

const EDGES = [
  ['server/http/', 'the domain never depends on the HTTP edge'],
  ['server/smtp/', 'the domain never depends on the SMTP edge'],
  ['server/realtime/', 'the domain never depends on the live push; the live push subscribes to its events'],
  ['server/mcp/', 'the domain never depends on the MCP server'],
  ['server/app.ts', 'the domain never depends on the HTTP app'],
  ['server/api-representations.ts', "the domain never depends on the edges' wire mapping"],
  ['server/service-texts.ts', "the domain never depends on the emulated service's texts: it raises refusals, the edges say them"],
  ['server/pigeonhole.ts', 'the domain never depends on the composition root'],
  ['server/main.ts', 'the domain never depends on the entry point'],
  ['server/cli.ts', 'the domain never depends on the command line'],
  ['ui/', 'the domain never depends on the UI'],
];
const EDGE_LIBRARIES = ['koa', '@koa/router', 'koa-body', 'ws', 'smtp-server', 'mailparser'];

/**
 * Storage's public files: all the domain and the edges may import from server/storage/ (the
 * store and its repositories, the capture store, the record shapes, the storage errors, the
 * namespace rule). Everything else in storage is its own business (docs/architecture.md, "Storage").
 */
export const STORAGE_PUBLIC = [
  'server/storage/store.ts',
  'server/storage/capture-store.ts',
  'server/storage/records.ts',
  'server/storage/errors.ts',
  'server/storage/namespace.ts',
];

/** The rule that the layers above storage import only its public files (`to` less `allowed`). */
function storagePublicRule() {
  return {
    from: ['server/domain/', 'server/http/', 'server/smtp/', 'server/mcp/', 'server/realtime/'],
    to: ['server/storage/'],
    allowed: STORAGE_PUBLIC,
    why: `the domain and the edges import only storage's public files (${STORAGE_PUBLIC.map((f) => path.posix.basename(f)).join(', ')}); the rest of server/storage/ is storage's own`,
  };
}

/**
 * Each rule: the files it applies to (`from`, less `except`), the imports they may not make
 * (`to`: repository paths, a trailing / for a folder, less `allowed`; `packages`: package names;
 * `outside`: any repository file not under these paths), and why.
 */
export const RULES = [
  ...EDGES.map(([to, why]) => ({ from: ['server/domain/'], to: [to], why })),
  storagePublicRule(),
  {
    from: ['server/domain/', 'server/storage/'],
    packages: EDGE_LIBRARIES,
    why: 'Koa, ws, smtp-server and mailparser stay in the edge that uses them; the domain and storage never see their types',
  },
  {
    from: ['server/'],
    except: ['server/smtp/'],
    packages: ['smtp-server', 'mailparser', 'libmime', 'libqp', 'libbase64'],
    why: 'smtp-server and mailparser (and the MIME libraries under it) are used only in the SMTP folder',
  },
  { from: ['server/'], except: ['server/realtime/'], packages: ['ws'], why: 'ws is used only in the realtime folder' },
  { from: ['server/realtime/'], to: ['server/http/', 'server/app.ts'], why: 'the live push never depends on the HTTP edge' },
  {
    from: ['server/storage/'],
    to: [
      'server/domain/',
      'server/http/',
      'server/smtp/',
      'server/realtime/',
      'server/mcp/',
      'server/app.ts',
      'server/api-representations.ts',
      'server/pigeonhole.ts',
      'server/main.ts',
    ],
    why: 'storage is the bottom layer: it never depends on the domain or anything above it',
  },
  { from: ['bench/'], to: ['test/'], why: 'benchmarks never depend on the tests' },
  { from: ['server/', 'client/', 'ui/'], to: ['test/', 'bench/'], why: 'shipped code never depends on the tests or the benchmarks' },
  {
    from: ['ui/'],
    outside: [
      'ui/',
      'client/pigeonhole-client.ts',
      'server/domain/mail/preview-policy.ts',
      'server/domain/mail/color-mode.ts',
      'server/domain/mail/file-name.ts',
    ],
    why: "the UI shares only the typed client's wire types (client/pigeonhole-client.ts) and the dependency-free preview policy, colour modes and file names (server/domain/mail/preview-policy.ts, color-mode.ts, file-name.ts) with the rest of the repository",
  },
  { from: ['client/'], outside: ['client/'], why: 'the typed client (its calls and its generated wire types) depends on nothing outside client/' },
  { from: ['client/'], packages: '*', why: 'the typed client (its calls and its generated wire types) depends on nothing outside client/' },
];

const under = (file, prefixes) => prefixes.some((p) => (p.endsWith('/') ? file.startsWith(p) : file === p));

function packageName(specifier) {
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

/** Source files under root, as paths relative to it with forward slashes. */
export function sourceFiles(root, dir = '') {
  const files = [];
  for (const entry of readdirSync(path.join(root, dir), { withFileTypes: true })) {
    const rel = dir ? `${dir}/${entry.name}` : entry.name;
    if (entry.isDirectory()) {
      if (!SKIP_DIRS.has(entry.name) && !SKIP_PATHS.has(rel)) files.push(...sourceFiles(root, rel));
    } else if (SOURCE.test(entry.name) && !entry.name.endsWith('.d.ts')) {
      files.push(rel);
    }
  }
  return files;
}

/** The module specifiers a file imports: static and type-only imports, re-exports, literal import(). */
export function importsOf(file, text) {
  const { module, errors } = parseSync(file, text);
  if (errors.length > 0) throw new Error(`${file}: cannot be parsed: ${errors[0].message}`);
  const found = [];
  const at = (offset) => text.slice(0, offset).split('\n').length;
  for (const i of module.staticImports) found.push({ specifier: i.moduleRequest.value, line: at(i.start) });
  for (const e of module.staticExports) {
    for (const entry of e.entries) if (entry.moduleRequest) found.push({ specifier: entry.moduleRequest.value, line: at(e.start) });
  }
  for (const d of module.dynamicImports) {
    const source = text.slice(d.moduleRequest.start, d.moduleRequest.end).trim();
    const literal = /^(['"])([^'"`]*)\1$/.exec(source) ?? /^`([^`$]*)`$/.exec(source);
    found.push({ specifier: literal ? literal[literal.length - 1] : null, expression: source, line: at(d.start) });
  }
  return found;
}

/** Every import in root that breaks a rule, as messages "file:line imports target: why", by file and line. */
export function checkLayers(root) {
  const problems = [];
  const files = sourceFiles(root);
  let imports = 0;
  for (const file of files) {
    const rules = RULES.filter((r) => under(file, r.from) && !under(file, r.except ?? []));
    const found = importsOf(file, readFileSync(path.join(root, file), 'utf8'));
    imports += found.length;
    if (rules.length === 0) continue;
    for (const { specifier, expression, line } of found) {
      const where = `${file}:${line}`;
      if (specifier === null) {
        problems.push({ file, line, text: `${where} imports ${expression}: an import() of a computed name cannot be checked against the layering ${DOC}` });
        continue;
      }
      const relative = specifier.startsWith('.');
      if (!relative && specifier.startsWith('node:')) continue;
      const target = relative ? path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier)) : null;
      for (const rule of rules) {
        const broken = relative
          ? (rule.to && under(target, rule.to) && !under(target, rule.allowed ?? [])) || (rule.outside && !under(target, rule.outside))
          : rule.packages === '*' || rule.packages?.includes(packageName(specifier));
        if (broken) problems.push({ file, line, text: `${where} imports ${target ?? specifier}: ${rule.why} ${DOC}` });
      }
    }
  }
  problems.sort((a, b) => (a.file === b.file ? a.line - b.line : a.file < b.file ? -1 : 1));
  const circles = [...folderCircles(folderEdges(root, files)), ...fileCircles(fileEdges(root, files))];
  return { files: files.length, imports, problems: [...problems.map((p) => p.text), ...circles, ...longFiles(root, files), ...storageFloor(root, files)] };
}

/** The house's limit on a file of shipped code (docs/architecture.md, "House style"): a longer one is split by meaning. */
const MAX_LINES = 400;
/** Generated files, exempt from the limit: nobody edits them. */
const GENERATED = new Set(['client/wire-types.ts']);

/** Each file of shipped code (server/, ui/, client/) over MAX_LINES lines, as a message. */
function longFiles(root, files) {
  const problems = [];
  for (const file of files) {
    if (!under(file, FOLDER_ROOTS) || GENERATED.has(file)) continue;
    const text = readFileSync(path.join(root, file), 'utf8');
    const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
    if (lines > MAX_LINES) problems.push(`${file} has ${lines} lines, more than ${MAX_LINES}: split it by meaning ${DOC}`);
  }
  return problems;
}

/**
 * The floor plan of server/storage/ (docs/architecture.md, "The storage floor plan"): its
 * sub-folders in layers, lowest first; a file in one imports only its own folder, the layers
 * below it and the storage vocabulary on top. The other top-level files (the store, the capture
 * store) sit above every sub-folder: nothing inside a sub-folder imports them. (Circles of files
 * there, type-only ones too, are fileCircles' to find, as everywhere in shipped code.)
 */
const STORAGE = 'server/storage/';
const STORAGE_LAYERS = [['disk'], ['packs', 'segments'], ['indexes', 'migrate']];
/** Top-level files of server/storage/ that every sub-folder may use: errors, record shapes, namespaces. */
const STORAGE_VOCABULARY = ['errors.ts', 'records.ts', 'namespace.ts'];

/** Each import inside server/storage/ that breaks its layer order, and each sub-folder the plan does not name, as a message. */
function storageFloor(root, files) {
  const rankOf = new Map(STORAGE_LAYERS.flatMap((names, rank) => names.map((name) => [name, rank])));
  const order = STORAGE_LAYERS.map((layer) => layer.join(', ')).join(' < ');
  const problems = [];
  for (const file of files) {
    if (!file.startsWith(STORAGE)) continue;
    const [folder, ...rest] = file.slice(STORAGE.length).split('/');
    if (rest.length === 0) continue;
    if (!rankOf.has(folder)) {
      problems.push(`${file}: ${STORAGE}${folder}/ is not in the storage floor plan (${order}) ${DOC}`);
      continue;
    }
    for (const { specifier, line } of importsOf(file, readFileSync(path.join(root, file), 'utf8'))) {
      if (!specifier?.startsWith('.')) continue;
      const target = path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier));
      if (!target.startsWith(STORAGE)) continue;
      const [to, ...below] = target.slice(STORAGE.length).split('/');
      const where = `${file}:${line} imports ${target}`;
      if (below.length === 0) {
        if (!STORAGE_VOCABULARY.includes(to)) {
          problems.push(
            `${where}: a storage sub-folder uses only the vocabulary of the top (${STORAGE_VOCABULARY.join(', ')}), never the store above it ${DOC}`,
          );
        }
      } else if (to !== folder && !(rankOf.get(to) < rankOf.get(folder))) {
        problems.push(`${where}: in storage, ${folder}/ imports only the layers below it (${order}) ${DOC}`);
      }
    }
  }
  return problems;
}

/** The code whose folders must not import each other in a circle: what ships. */
const FOLDER_ROOTS = ['server/', 'ui/', 'client/'];

/** Each relative import of shipped code (server/, ui/, client/): the file, its line and the repository path it names. */
function* shippedImports(root, files) {
  for (const file of files) {
    if (!under(file, FOLDER_ROOTS)) continue;
    for (const { specifier, line } of importsOf(file, readFileSync(path.join(root, file), 'utf8'))) {
      if (specifier?.startsWith('.')) yield { file, line, target: path.posix.normalize(path.posix.join(path.posix.dirname(file), specifier)) };
    }
  }
}

/** Adds the edge from a to b unless there is one, with the import that makes it. */
function addEdge(edges, a, b, { file, line, target }) {
  if (!edges.has(a)) edges.set(a, new Map());
  if (!edges.get(a).has(b)) edges.get(a).set(b, `${file}:${line} imports ${target}`);
}

/**
 * Imports between sibling folders: an import from a/x/f.ts of b/y/g.ts (a and b children of one
 * folder) is an edge from that folder's child a to its child b, with the first import that
 * makes it. Imports between a folder and the folders inside it are not edges: a folder uses
 * what it holds, and what it holds may use the folder's own files.
 */
function folderEdges(root, files) {
  const edges = new Map();
  for (const found of shippedImports(root, files)) {
    const from = path.posix.dirname(found.file).split('/');
    const to = path.posix.dirname(found.target).split('/');
    let common = 0;
    while (common < from.length && common < to.length && from[common] === to[common]) common++;
    if (common === from.length || common === to.length) continue;
    addEdge(edges, from.slice(0, common + 1).join('/'), to.slice(0, common + 1).join('/'), found);
  }
  return edges;
}

/** Each set of sibling folders that import each other in a circle, as a message. */
function folderCircles(edges) {
  return circlesOf(edges).map(
    ({ members, because }) => `folders ${members.join(', ')} import each other in a circle (${because.join('; ')}): sibling folders depend one way ${DOC}`,
  );
}

/**
 * Imports between files of shipped code (server/, ui/, client/), type-only ones and re-exports
 * included: an edge from the importing file to the file it names, with the first import that
 * makes it. Only imports of files in the tree count (a package is never part of a circle).
 */
function fileEdges(root, files) {
  const known = new Set(files);
  const edges = new Map();
  for (const found of shippedImports(root, files)) {
    if (known.has(found.target) && found.target !== found.file) addEdge(edges, found.file, found.target, found);
  }
  return edges;
}

/** Each set of files that import each other in a circle (type-only imports too), as a message. */
function fileCircles(edges) {
  return circlesOf(edges).map(
    ({ members, because }) =>
      `files ${members.join(', ')} import each other in a circle (${because.join('; ')}): files depend one way, type-only imports too ${DOC}`,
  );
}

/**
 * The circles of a graph (Tarjan's strongly connected components of two or more members): each
 * with its members, sorted, and the edges between them that make it, by the text of each edge.
 */
function circlesOf(edges) {
  const index = new Map();
  const low = new Map();
  const stack = [];
  const circles = [];
  let next = 0;
  const visit = (node) => {
    index.set(node, next);
    low.set(node, next++);
    stack.push(node);
    for (const to of edges.get(node)?.keys() ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node), low.get(to)));
      } else if (stack.includes(to)) low.set(node, Math.min(low.get(node), index.get(to)));
    }
    if (low.get(node) !== index.get(node)) return;
    const component = [];
    for (let member = stack.pop(); ; member = stack.pop()) {
      component.push(member);
      if (member === node) break;
    }
    if (component.length < 2) return;
    component.sort();
    const because = component.flatMap((a) => component.filter((b) => edges.get(a)?.has(b)).map((b) => edges.get(a).get(b)));
    circles.push({ members: component, because });
  };
  for (const node of [...edges.keys()].sort()) if (!index.has(node)) visit(node);
  return circles.sort((a, b) => (a.members.join() < b.members.join() ? -1 : 1));
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const root = path.resolve(process.argv[2] ?? path.join(path.dirname(fileURLToPath(import.meta.url)), '..'));
  const { files, imports, problems } = checkLayers(root);
  for (const problem of problems) console.error(problem);
  if (problems.length > 0) {
    console.error(
      `layers: ${problems.length} problem${problems.length === 1 ? '' : 's'}: imports that break the layering, folders or files in a circle, or files too long`,
    );
    process.exit(1);
  }
  console.log(`layers: ${imports} imports in ${files} files keep the layering`);
}
