import { execFile, spawn } from 'node:child_process';
import { once } from 'node:events';
import { cp, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HEALTHCHECK_TIMEOUT_MS } from '../../server/cli.ts';
import { dockerignored, durationMs, envOf, execForm, flag, parseDockerfile, type Stage } from './dockerfile.ts';
import { freePort } from '../support/ports.ts';

/**
 * No Docker engine runs here (docs/architecture.md, machine facts), so the image is checked by
 * what can be checked: the Dockerfile runs exactly the install, build and start commands of
 * docs/running.md, replaying its runtime stage outside Docker (in a temporary folder, with the
 * Dockerfile's environment) gives a server that its own HEALTHCHECK calls ready, and the Docker
 * examples of the README and docs/running.md build the image and create a mounted file before
 * they use it. The image itself was built and run with Podman: docs/containers.md says what
 * was verified how.
 */

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** The pages with Docker examples; docs/running.md also holds the image's commands. */
const DOCKER_PAGES = ['README.md', 'docs/running.md'];
let dockerfile: string;
let stages: Stage[];
let readmeSteps: string[];
/** The text of .dockerignore. */
let dockerignore: string;

beforeAll(async () => {
  dockerfile = await readFile(path.join(ROOT, 'Dockerfile'), 'utf8');
  stages = parseDockerfile(dockerfile);
  const running = await readFile(path.join(ROOT, 'docs/running.md'), 'utf8');
  const block = /<!-- image-steps -->\n```sh\n([\s\S]*?)```/.exec(running);
  if (!block) throw new Error('docs/running.md has no <!-- image-steps --> block');
  readmeSteps = block[1]!
    .trim()
    .split('\n')
    .map((line) => line.replace(/#.*$/, '').trim());
  dockerignore = await readFile(path.join(ROOT, '.dockerignore'), 'utf8');
});

const runs = (stage: Stage) => stage.instructions.filter((i) => i.keyword === 'RUN').map((i) => i.args);
/** RUN steps that only prepare the file system of the image (the /data mount point). */
const PREPARE = 'mkdir -p /data && chown node:node /data';

describe('the Dockerfile', () => {
  it('builds in one stage and runs in a slim one on the same current LTS Node', () => {
    expect(stages.map((s) => s.name)).toEqual(['build', null]);
    for (const stage of stages) expect(stage.image).toMatch(/^node:(2[4-9]|[3-9]\d)-[a-z]+-slim$/);
    expect(stages[0]!.image).toBe(stages[1]!.image);
  });

  it('runs exactly the install, build and start commands of docs/running.md, in order', async () => {
    const [build, runtime] = stages as [Stage, Stage];
    const cmd = runtime.instructions.filter((i) => i.keyword === 'CMD');
    expect(cmd).toHaveLength(1);
    const steps = [...runs(build), ...runs(runtime).filter((r) => r !== PREPARE), execForm(cmd[0]!.args).join(' ')];
    expect(steps).toEqual(readmeSteps);
    expect(runs(runtime).filter((r) => r !== PREPARE)).toHaveLength(1);

    // npm start is the build plus the same start command; CI installs with the same command.
    const pkg = JSON.parse(await readFile(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(pkg.scripts.start).toBe(`npm run build --silent && ${readmeSteps[3]}`);
    expect(readmeSteps[1]).toBe('npm run build');
    expect(await readFile(path.join(ROOT, '.ci/run'), 'utf8')).toContain(`\n${readmeSteps[0]} `);
  });

  it('runs as a non-root user, on all addresses, with /data as a volume, both ports and its own health check', async () => {
    const runtime = stages[1]!;
    const one = (keyword: string) => {
      const found = runtime.instructions.filter((i) => i.keyword === keyword);
      expect(found, keyword).toHaveLength(1);
      return found[0]!;
    };
    expect(one('USER').args).toBe('node');
    // USER comes after every RUN, so the server never runs as root.
    const order = runtime.instructions.map((i) => i.keyword);
    expect(order.lastIndexOf('RUN')).toBeLessThan(order.indexOf('USER'));
    expect(envOf(runtime)).toMatchObject({ PIGEONHOLE_HOST: '0.0.0.0', PIGEONHOLE_DATA_DIR: '/data' });
    expect(one('VOLUME').args).toBe('/data');
    expect(one('EXPOSE').args.split(/\s+/).sort()).toEqual(['1025', '8025']);
    expect(runs(runtime)).toContain(PREPARE);
    const health = one('HEALTHCHECK');
    // GET /readyz on loopback with Node's own fetch (the image has no curl), on the port the
    // server reads; the replay below runs it.
    const probe = execForm(health.args);
    expect(probe.slice(0, 2)).toEqual(['node', '-e']);
    expect(probe[2]).toContain("'http://127.0.0.1:'+(process.env.PIGEONHOLE_HTTP_PORT||8025)+'/readyz'");
    // docs/containers.md shows the command as it is.
    expect(await readFile(path.join(ROOT, 'docs/containers.md'), 'utf8')).toContain(`node -e "${probe[2]}"`);
    // Docker gives the probe as long as `pigeonhole healthcheck` gives /readyz.
    expect(durationMs(flag(health, 'timeout')!)).toBe(HEALTHCHECK_TIMEOUT_MS);
    // No --start-interval: Docker Engine before 25 and Podman before 5 refuse the whole
    // Dockerfile over it (Podman 4.3: `flag provided but not defined: -start-interval`).
    expect(Object.keys(health.flags).sort()).toEqual(['interval', 'retries', 'start-period', 'timeout']);
    // So the interval itself is short: compose's service_healthy waits for the first success.
    // A probe is a Node process of about 0.1 s of CPU. The start period is long enough for a slow machine.
    expect(durationMs(flag(health, 'interval')!)).toBeLessThanOrEqual(10_000);
    expect(durationMs(flag(health, 'start-period')!)).toBeGreaterThanOrEqual(20_000);
    expect(execForm(one('CMD').args)).toEqual(['node', '--max-semi-space-size=4', 'dist/server/main.js']);
  });

  it("keeps npm's cache out of the image and needs no frontend pulled", () => {
    // BuildKit's own Dockerfile frontend reads every instruction here: a `# syntax=` line would
    // only make it pull one.
    expect(dockerfile).not.toMatch(/^#\s*syntax\s*=/im);
    // Every install writes npm's cache to a cache mount, never to a layer (it was 82 MB of the image).
    const installs = stages.flatMap((s) => s.instructions.filter((i) => i.keyword === 'RUN' && /^npm ci\b/.test(i.args)));
    expect(installs).toHaveLength(2);
    for (const install of installs) expect(install.flags.mount, install.args).toEqual(['type=cache,target=/root/.npm']);
  });

  it('installs only what runs: production dependencies, without the optional peers that name test tooling', async () => {
    const install = runs(stages[1]!).find((r) => /^npm ci\b/.test(r))!;
    // html-validate names vitest and jest as optional peers: npm keeps a package that is both a
    // dev dependency and an optional peer (vitest, vite, rolldown, esbuild: 55 MB) unless
    // optional packages are left out as well.
    expect(install.split(/\s+/)).toEqual(expect.arrayContaining(['--omit=dev', '--omit=optional']));
    // --omit=optional is safe only while nothing that runs has an optional dependency of its own.
    const lock = JSON.parse(await readFile(path.join(ROOT, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { dev?: boolean; devOptional?: boolean; optional?: boolean; optionalDependencies?: object }>;
    };
    const production = Object.entries(lock.packages).filter(([, p]) => !p.dev && !p.devOptional && !p.optional);
    expect(production.filter(([, p]) => p.optionalDependencies).map(([name]) => name || 'package.json')).toEqual([]);
  });

  it('builds from an allowlisted context: what the build compiles and the image copies, nothing else', async () => {
    const ignored = dockerignored(dockerignore);
    const fromContext = stages
      .flatMap((s) => s.instructions.filter((i) => i.keyword === 'COPY' && !flag(i, 'from')))
      .flatMap((i) => i.args.split(/\s+/).slice(0, -1))
      .filter((source) => source !== '.');
    for (const source of fromContext) expect(ignored(source), source).toBe(false);

    // What `npm run build` reads: the TypeScript projects it names, what they extend and include,
    // the Vite config's folder, and every file their sources import.
    const pkg = JSON.parse(await readFile(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    const build = pkg.scripts.build!;
    const roots: string[] = [];
    for (const [, project] of build.matchAll(/tsc -p (\S+)/g)) {
      const config = JSON.parse(await readFile(path.join(ROOT, project!), 'utf8')) as { extends?: string; include?: string[] };
      roots.push(...(config.include ?? []));
      for (const file of [project!, config.extends].filter((f): f is string => f !== undefined)) expect(ignored(path.normalize(file)), file).toBe(false);
    }
    const vite = /vite build --config (\S+)/.exec(build)![1]!;
    roots.push(path.dirname(vite));
    expect(roots.length).toBeGreaterThanOrEqual(3);
    let imports = 0;
    for (const root of roots) {
      expect(ignored(root), root).toBe(false);
      for (const file of await readdir(path.join(ROOT, root), { recursive: true })) {
        if (!/\.tsx?$/.test(file) || file.split(path.sep).includes('node_modules')) continue;
        const source = await readFile(path.join(ROOT, root, file), 'utf8');
        for (const [, specifier] of source.matchAll(/(?:from|import\()\s*'(\.{1,2}\/[^']+)'/g)) {
          const target = path.relative(ROOT, path.resolve(ROOT, root, path.dirname(file), specifier!));
          expect(target.startsWith('..') || ignored(target.split(path.sep).join('/')), `${root}/${file} imports ${specifier}, outside the build context`).toBe(
            false,
          );
          imports++;
        }
      }
    }
    expect(imports).toBeGreaterThan(100);

    // Tests, benchmarks, docs, examples, other clients, local installs, builds and data stay out.
    for (const out of [
      'test',
      'bench',
      'docs',
      'examples',
      'clients',
      'bin',
      'scripts',
      'README.md',
      '.git',
      '.ci',
      'node_modules',
      'dist',
      'data',
      'ui/node_modules',
      'server/dist',
    ]) {
      expect(ignored(out), out).toBe(true);
    }
  });
});

describe('the Docker examples', () => {
  /** The shell lines of a page's sh code blocks, with continuation lines joined. */
  const shellLines = async (page: string) => {
    const text = await readFile(path.join(ROOT, page), 'utf8');
    const blocks = [...text.matchAll(/```(?:sh|yaml)\n([\s\S]*?)```/g)].map((m) => m[1]!);
    return blocks
      .join('\n')
      .replace(/\\\n\s*/g, ' ')
      .split('\n')
      .map((line) => line.trim());
  };

  it.each(DOCKER_PAGES)('%s builds the image before the first docker run', async (page) => {
    const lines = await shellLines(page);
    const build = lines.findIndex((line) => line.startsWith('docker build -t pigeonhole .'));
    const run = lines.findIndex((line) => line.startsWith('docker run '));
    expect(run, `${page} has a docker run`).toBeGreaterThanOrEqual(0);
    expect(build, `${page}: docker build -t pigeonhole . before the first docker run`).toBeGreaterThanOrEqual(0);
    expect(build).toBeLessThan(run);
  });

  it('creates every mounted configuration file before mounting it', async () => {
    let checked = 0;
    for (const page of DOCKER_PAGES) {
      const text = await readFile(path.join(ROOT, page), 'utf8');
      // A bind mount of a file that does not exist makes Docker create a folder there (EISDIR).
      for (const mount of text.matchAll(/(?:"\$PWD\/|\.\/)(pigeonhole\.json):/g)) {
        const before = text.slice(0, mount.index);
        expect(before, `${page}: ${mount[1]} is created before it is mounted`).toMatch(
          /\[ -f pigeonhole\.json \] \|\| cp \S*fixtures\/sample-config\.json pigeonhole\.json/,
        );
        checked++;
      }
    }
    // The docker run and the compose example of docs/running.md, at least.
    expect(checked).toBeGreaterThanOrEqual(2);
  });

  it('creates the configuration file from a path that exists, and mounts what the image reads', async () => {
    await expect(readFile(path.join(ROOT, 'fixtures/sample-config.json'), 'utf8')).resolves.toContain('"teams"');
    const lines = await shellLines('docs/running.md');
    const run = lines.find((line) => line.startsWith('docker run ') && line.includes('pigeonhole.json'))!;
    expect(run).toContain('-v "$PWD/pigeonhole.json:/config/pigeonhole.json:ro"');
    expect(run).toContain('-e PIGEONHOLE_CONFIG=/config/pigeonhole.json');
  });
});

function sh(command: string, cwd: string, env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((resolve, reject) => {
    execFile('/bin/sh', ['-c', command], { cwd, env, timeout: 240_000, maxBuffer: 16 * 1024 * 1024 }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${command} failed in ${cwd}:\n${stdout}\n${stderr}`));
      else resolve();
    });
  });
}

describe('the image, replayed without Docker', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'pigeonhole-image-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('builds, installs its runtime, starts, answers its HEALTHCHECK, serves and stops with 0', { timeout: 300_000 }, async () => {
    const [build, runtime] = stages as [Stage, Stage];
    const env = { ...process.env, npm_config_prefer_offline: 'true' };
    // The build stage is this checkout: CI has run its install already; run its build.
    const buildWorkdir = build.instructions.find((i) => i.keyword === 'WORKDIR')!.args;
    for (const command of runs(build).slice(1)) await sh(command, ROOT, env);

    const app = path.join(dir, 'app');
    await mkdir(app);
    const fromContext = (p: string) => path.join(ROOT, p);
    const fromBuild = (p: string) => path.join(ROOT, path.relative(buildWorkdir, p));
    for (const step of runtime.instructions) {
      if (step.keyword === 'COPY') {
        const parts = step.args.split(/\s+/);
        const target = path.resolve(app, parts.at(-1)!);
        const sources = parts.slice(0, -1);
        for (const source of sources) {
          const from = flag(step, 'from') === build.name ? fromBuild(source) : fromContext(source);
          const to = target.endsWith('/') || parts.at(-1)!.endsWith('/') || sources.length > 1 ? path.join(target, path.basename(source)) : target;
          await cp(from, to, { recursive: true });
        }
      } else if (step.keyword === 'RUN' && step.args !== PREPARE) {
        await sh(step.args, app, env);
      }
    }

    // Only what runs: none of the build and test tooling, and html-validate (the message check).
    const installed = await readdir(path.join(app, 'node_modules'));
    for (const tool of ['vitest', 'vite', 'rolldown', 'esbuild', 'lightningcss', 'tsx', 'typescript', 'jest', '@biomejs']) {
      expect(installed, tool).not.toContain(tool);
    }
    expect(installed).toContain('html-validate');

    const port = await freePort();
    const imageEnv = {
      ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('PIGEONHOLE_'))),
      ...envOf(runtime),
      // Outside a container: loopback only, a temporary /data, free ports.
      PIGEONHOLE_HOST: '127.0.0.1',
      PIGEONHOLE_DATA_DIR: path.join(dir, 'data'),
      PIGEONHOLE_HTTP_PORT: String(port),
      PIGEONHOLE_SMTP_PORT: '0',
    };
    const [cmd, ...args] = execForm(runtime.instructions.find((i) => i.keyword === 'CMD')!.args);
    const child = spawn(cmd === 'node' ? process.execPath : cmd!, args, { cwd: app, env: imageEnv, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (c) => (output += c));
    child.stderr.on('data', (c) => (output += c));
    try {
      const [hcmd, ...hargs] = execForm(runtime.instructions.find((i) => i.keyword === 'HEALTHCHECK')!.args);
      const healthcheck = (env: NodeJS.ProcessEnv = {}) =>
        new Promise<number>((resolve) => {
          execFile(hcmd === 'node' ? process.execPath : hcmd!, hargs, { cwd: app, env: { ...imageEnv, ...env }, timeout: 10_000 }, (error) =>
            resolve(error ? ((error as { code?: number }).code ?? -1) : 0),
          );
        });
      // Unhealthy when nothing answers on the port the server was given.
      expect(await healthcheck({ PIGEONHOLE_HTTP_PORT: String(await freePort()) })).toBe(1);
      await expect
        .poll(() => healthcheck(), { timeout: 30_000, interval: 100 })
        .toBe(0)
        .catch((error: Error) => {
          throw new Error(`${error.message}\n${output}`);
        });
      // The GitHub Actions recipe's health command (docs/containers.md) as Docker runs a
      // --health-cmd: with /bin/sh -c. In double quotes for the runner, with nothing to unescape.
      const recipe = /--health-cmd "([^"\\]+)"/.exec(await readFile(path.join(ROOT, 'docs/containers.md'), 'utf8'))![1]!;
      expect(recipe).toContain('http://127.0.0.1:8025/readyz');
      const shellPath = `${path.dirname(process.execPath)}${path.delimiter}${process.env.PATH}`;
      const shell = (command: string) =>
        new Promise<number>((resolve) => {
          execFile('/bin/sh', ['-c', command], { env: { ...imageEnv, PATH: shellPath }, timeout: 10_000 }, (error) =>
            resolve(error ? ((error as { code?: number }).code ?? -1) : 0),
          );
        });
      expect(await shell(recipe.replace(':8025/', `:${port}/`))).toBe(0);
      expect(await shell(recipe.replace(':8025/', `:${await freePort()}/`))).toBe(1);

      expect(output).toContain(`Pigeonhole listening on http://127.0.0.1:${port}`);
      expect(output).toContain(`configuration:  ${path.join(app, 'fixtures', 'sample-config.json')}`);

      const sent = await fetch(`http://127.0.0.1:${port}/v1/email/send/`, {
        method: 'POST',
        headers: { Authorization: 'Api-Key test-key', 'Content-Type': 'application/json' },
        body: JSON.stringify({ recipient: 'image@example.com', subject: 'From the image', body: '<p>i</p>' }),
      });
      expect(sent.status).toBe(200);
      const list = (await (await fetch(`http://127.0.0.1:${port}/api/messages`)).json()) as { total: number };
      expect(list.total).toBe(1);

      // The parts that load their dependencies on first use: the check (html-validate), MCP, metrics.
      const check = await fetch(`http://127.0.0.1:${port}/api/check`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ html: '<html lang="en"><body><a href="https://example.com/"></a></body></html>' }),
      });
      expect(check.status).toBe(200);
      const report = (await check.json()) as { accessibility: { issues: { rule: string; source: string }[] } };
      expect(report.accessibility.issues).toContainEqual(expect.objectContaining({ rule: 'wcag/h30', source: 'html-validate' }));
      const mcp = await fetch(`http://127.0.0.1:${port}/mcp`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json', Accept: 'application/json, text/event-stream' },
        body: JSON.stringify({
          jsonrpc: '2.0',
          id: 1,
          method: 'initialize',
          params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'dockerfile-test', version: '1' } },
        }),
      });
      expect(mcp.status).toBe(200);
      expect(await mcp.text()).toContain('"name":"pigeonhole"');
      expect(await (await fetch(`http://127.0.0.1:${port}/metrics`)).text()).toContain('pigeonhole_captures_total{source="api"} 1');
    } finally {
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      const [code] = (await exited) as [number | null];
      expect(code, output).toBe(0);
    }
  });
});

describe('the installed package', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(tmpdir(), 'pigeonhole-package-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  it('`npm pack` ships the build, not the sources, and its pigeonhole bin serves and checks itself', { timeout: 300_000 }, async () => {
    const env = { ...Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith('PIGEONHOLE_'))), npm_config_prefer_offline: 'true' };
    await sh('npm run build', ROOT, env);
    await sh(`npm pack --silent --pack-destination "${dir}"`, ROOT, env);
    const tarball = (await readdir(dir)).find((f) => f.endsWith('.tgz'))!;
    const listed = await new Promise<string>((resolve, reject) =>
      execFile('tar', ['tzf', path.join(dir, tarball)], (error, stdout) => (error ? reject(error) : resolve(stdout))),
    );
    const files = listed.trim().split('\n');
    expect(files).toContain('package/bin/pigeonhole.js');
    expect(files).toContain('package/dist/server/main.js');
    expect(files).toContain('package/fixtures/sample-config.json');
    expect(files.filter((f) => f.endsWith('.ts') && !f.endsWith('.d.ts'))).toEqual([]);
    expect(files.filter((f) => f.startsWith('package/test/') || f.startsWith('package/data/'))).toEqual([]);

    const project = path.join(dir, 'project');
    await mkdir(project);
    await writeFile(path.join(project, 'package.json'), '{"name": "uses-pigeonhole", "private": true}');
    await sh(`npm install --no-audit --no-fund "${path.join(dir, tarball)}"`, project, env);
    const bin = path.join(project, 'node_modules', '.bin', 'pigeonhole');
    const run = (args: string[]) =>
      new Promise<{ code: number; stdout: string }>((resolve) =>
        execFile(bin, args, { cwd: project, env, timeout: 20_000 }, (error, stdout) =>
          resolve({ code: error ? ((error as { code?: number }).code ?? -1) : 0, stdout }),
        ),
      );
    const pkg = JSON.parse(await readFile(path.join(ROOT, 'package.json'), 'utf8')) as { version: string };
    expect(await run(['--version'])).toEqual({ code: 0, stdout: `${pkg.version}\n` });

    const port = await freePort();
    const child = spawn(bin, ['--http-port', String(port), '--smtp-port', '0', '--data-dir', path.join(dir, 'data')], {
      cwd: project,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (c) => (output += c));
    child.stderr.on('data', (c) => (output += c));
    try {
      await expect
        .poll(async () => (await run(['healthcheck', '--http-port', String(port)])).code, { timeout: 30_000, interval: 100 })
        .toBe(0)
        .catch((error: Error) => {
          throw new Error(`${error.message}\n${output}`);
        });
      // The installed package runs its compiled build and finds its own sample configuration.
      expect(output).toContain(`configuration:  ${path.join(project, 'node_modules', 'pigeonhole', 'fixtures', 'sample-config.json')}`);
    } finally {
      const exited = once(child, 'exit');
      child.kill('SIGTERM');
      const [code] = (await exited) as [number | null];
      expect(code, output).toBe(0);
    }
  });
});
