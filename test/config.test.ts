import { spawnSync } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig, SAMPLE_CONFIG } from '../server/config.ts';
import { loadSandboxConfig } from '../server/domain/directory/sandbox-config.ts';
import { configProblem } from './support/config-problem.ts';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'pigeonhole-config-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const sample = () => structuredClone(loadSandboxConfig(SAMPLE_CONFIG)) as any;
const problem = configProblem;

describe('options: defaults ← PIGEONHOLE_* ← flags', () => {
  it('has the documented defaults', () => {
    const config = loadConfig([], {});
    expect(config).toMatchObject({
      httpPort: 8025,
      smtpPort: 1025,
      host: '127.0.0.1',
      dataDir: path.resolve('data'),
      configFile: SAMPLE_CONFIG,
      maxBodySize: 26214400,
    });
    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.sandbox.teams[0])).toBe(true);
  });

  it('reads the environment, and flags win over it', () => {
    const env = { PIGEONHOLE_HTTP_PORT: '9000', PIGEONHOLE_HOST: '0.0.0.0', PIGEONHOLE_DATA_DIR: '/tmp/x', PIGEONHOLE_MAX_BODY_SIZE: '1024' };
    expect(loadConfig([], env)).toMatchObject({ httpPort: 9000, host: '0.0.0.0', dataDir: '/tmp/x', maxBodySize: 1024 });
    expect(loadConfig(['--http-port', '9100', '--smtp-port=2525'], env)).toMatchObject({ httpPort: 9100, smtpPort: 2525 });
  });

  it('names every bad value and where it came from', () => {
    expect(() => loadConfig(['--http-port', 'http'], { PIGEONHOLE_SMTP_PORT: '70000' })).toThrow(
      '--http-port: "http" is not a port number (0-65535)\nPIGEONHOLE_SMTP_PORT: "70000" is not a port number (0-65535)',
    );
    expect(() => loadConfig(['--nope'], {})).toThrow(/Unknown option '--nope'/);
  });
});

describe('the configuration file', () => {
  it('has the sample teams, keys and flows the README promises', () => {
    const config = loadSandboxConfig(SAMPLE_CONFIG);
    const senders = config.teams.flatMap((t) => t.senders.map((s) => ({ key: s.apiKey, team: t, s })));
    const byKey = Object.fromEntries(senders.map((x) => [x.key, x]));
    expect(byKey['test-key']!.s).toMatchObject({ dailyLimit: 100, developmentMode: false });
    expect(byKey['test-key']!.s.accountTemplate).toContain('{{content}}');
    expect(byKey['test-key']!.team).toMatchObject({ flowsEnabled: true, blockedRecipients: ['blocked@example.com'] });
    expect(byKey['dev-key']!.s).toMatchObject({ developmentMode: true, developmentRecipient: 'dev-inbox@example.com' });
    expect(byKey['dev-key']!.team).toBe(byKey['test-key']!.team);
    expect(byKey['bulk-key']!.s.dailyLimit).toBeNull();
    expect(byKey['noflows-key']!.team.flowsEnabled).toBe(false);
    expect(config.flows.map((f) => [f.trigger, f.name, f.steps.length > 0])).toEqual([
      ['WELCOME_SIGNUP', 'Welcome Signup Flow', true],
      ['EMPTY_FLOW', 'Empty Flow', false],
    ]);
    expect(config.flows[0]!.steps[0]!.type).toBe('send_email');
  });

  it('names the file, the field and the problem', () => {
    const c = sample();
    c.teams[0].senders[1].apiKey = 'test-key';
    c.teams[0].senders[0].email = 'nope';
    expect(problem(c)).toBe(
      'Invalid configuration file custom.json:\n' +
        '  teams[0].senders[0].email: not a valid email address\n' +
        '  teams[0].senders[1].apiKey: duplicate apiKey "test-key" (also at teams.0.senders.0.apiKey)',
    );
  });

  it('refuses unknown step types, jumps to missing steps and duplicate triggers', () => {
    const c = sample();
    c.flows[0].steps.push({ type: 'teleport' });
    expect(problem(c)).toContain('flows[0].steps[6].type: unknown step type (use send_email, wait, condition or action)');
    const jump = sample();
    jump.flows[0].steps[2].whenPresent = 'nowhere';
    expect(problem(jump)).toContain('flows[0].steps[2].whenPresent: no step in this flow is named "nowhere"');
    const dup = sample();
    dup.flows[1].trigger = 'WELCOME_SIGNUP';
    expect(problem(dup)).toContain('flows[1].trigger: duplicate flow trigger "WELCOME_SIGNUP"');
    const mode = sample();
    mode.teams[0].senders[1].developmentRecipient = null;
    expect(problem(mode)).toContain('teams[0].senders[1].developmentRecipient: developmentMode needs a developmentRecipient');
    const typo = sample();
    typo.teams[0].flowsEnabeld = true;
    expect(problem(typo)).toMatch(/teams\[0\]: Unrecognized key: "flowsEnabeld"/);
  });

  it('stops start-up with exit code 2 and the message on stderr', async () => {
    const file = path.join(dir, 'broken.json');
    await writeFile(file, JSON.stringify({ teams: [{ id: 'x', senders: [{ id: 's', email: 'a@example.com' }] }] }));
    const run = spawnSync(process.execPath, ['--import', 'tsx', 'server/main.ts', '--config', file, '--http-port', '0'], { encoding: 'utf8', timeout: 20_000 });
    expect(run.status).toBe(2);
    expect(run.stderr).toContain(`pigeonhole: Invalid configuration file ${file}:`);
    expect(run.stderr).toContain('teams[0].senders[0].apiKey:');
    const notJson = path.join(dir, 'not.json');
    await writeFile(notJson, '{ teams: ');
    const bad = spawnSync(process.execPath, ['--import', 'tsx', 'server/main.ts', '--config', notJson], { encoding: 'utf8', timeout: 20_000 });
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain(`Configuration file ${notJson} is not valid JSON`);
  });
});
