import { readFile } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { loadOptions, optionList } from '../../server/config.ts';

const CONFIGURATION = fileURLToPath(new URL('../../docs/configuration.md', import.meta.url));

describe('retention options', () => {
  it('default to 10000 captures and no age limit', () => {
    expect(loadOptions([], {})).toMatchObject({ maxMessages: 10000, maxAgeMs: 0 });
  });

  it('read durations and whole numbers from flags and the environment; 0 or empty turns a limit off', () => {
    expect(loadOptions(['--max-age', '7d', '--max-messages', '0'], {})).toMatchObject({ maxAgeMs: 7 * 86_400_000, maxMessages: 0 });
    expect(loadOptions([], { PIGEONHOLE_MAX_AGE: '1d12h', PIGEONHOLE_MAX_MESSAGES: '250' })).toMatchObject({ maxAgeMs: 36 * 3_600_000, maxMessages: 250 });
    expect(loadOptions([], { PIGEONHOLE_MAX_AGE: '' }).maxAgeMs).toBe(0);
    expect(loadOptions(['--max-age=0'], { PIGEONHOLE_MAX_AGE: '2h' }).maxAgeMs).toBe(0);
  });

  it('refuse what is not a duration or a whole number, naming where it came from', () => {
    expect(() => loadOptions(['--max-age', '0s'], {})).toThrow('--max-age: "0s" is not a duration such as 7d, 12h or 1d12h (0 to keep captures of any age)');
    expect(() => loadOptions([], { PIGEONHOLE_MAX_MESSAGES: '1.5' })).toThrow('PIGEONHOLE_MAX_MESSAGES: "1.5" is not a whole number (0 or more)');
  });
});

describe('the options table of docs/configuration.md', () => {
  it('lists every option with its environment variable and default, and nothing else', async () => {
    const page = await readFile(CONFIGURATION, 'utf8');
    const section = page.slice(page.indexOf('## Options'), page.indexOf('## The configuration file'));
    const rows = [...section.matchAll(/^\| `--([a-z-]+)` \| `([A-Z_]+)` \| `([^`]*)`[^|]*\| (.+) \|$/gm)].map((m) => ({
      flag: m[1],
      env: m[2],
      default: m[3],
    }));
    expect(rows).toEqual(optionList().map((o) => ({ flag: o.flag, env: o.env, default: o.default })));
  });
});

describe('the workbench options', () => {
  it('read --templates as an existing folder, --relay as an SMTP URL and --relay-allow repeated or comma-separated', () => {
    const options = loadOptions(
      ['--templates', '.', '--relay', 'smtp://me%40x:p%3Ass@mail.example:2525', '--relay-allow', '*@example.com', '--relay-allow', 'QA+*@example.org'],
      {},
    );
    expect(options.templates).toBe(process.cwd());
    expect(options.relay).toEqual({ host: 'mail.example', port: 2525, secure: false, auth: { user: 'me@x', pass: 'p:ss' } });
    expect(options.relayAllow).toEqual(['*@example.com', 'qa+*@example.org']);
    expect(loadOptions([], { PIGEONHOLE_RELAY: 'smtps://[::1]', PIGEONHOLE_RELAY_ALLOW: 'a@example.com, *@b.example' })).toMatchObject({
      relay: { host: '::1', port: 465, secure: true, auth: null },
      relayAllow: ['a@example.com', '*@b.example'],
    });
    expect(loadOptions([], {})).toMatchObject({ templates: null, relay: null, relayAllow: [] });
  });

  it('refuse a missing folder, a relay that is not smtp:// and patterns without a relay, naming where they came from', () => {
    expect(() => loadOptions(['--templates', '/nonexistent-folder'], {})).toThrow('--templates: /nonexistent-folder is not a folder');
    expect(() => loadOptions(['--relay', 'http://user:secret@mail.example'], {})).toThrow(
      '--relay: "http://…@mail.example" is not smtp://[user:pass@]host:port or smtps://[user:pass@]host:port',
    );
    expect(() => loadOptions([], { PIGEONHOLE_RELAY_ALLOW: 'example.com' })).toThrow(
      'PIGEONHOLE_RELAY_ALLOW: "example.com" is not a recipient pattern such as *@example.com or qa+*@example.org',
    );
    expect(() => loadOptions(['--relay-allow', '*@example.com'], {})).toThrow('--relay-allow: needs --relay, the SMTP server releases go through');
  });
});
