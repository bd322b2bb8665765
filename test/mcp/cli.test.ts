import { describe, expect, it } from 'vitest';
import { runCli } from '../../server/cli.ts';

/** `pigeonhole mcp`'s command line, through the same entry as the server's. */
async function cli(argv: string[]) {
  const out: string[] = [];
  const err: string[] = [];
  const serve = async () => {
    throw new Error('the sandbox must not start for this command line');
  };
  const code = await runCli(argv, {}, serve, { out: (line) => out.push(line), err: (line) => err.push(line), readPassword: async () => '' });
  return { code, out: out.join('\n'), err: err.join('\n') };
}

describe('pigeonhole mcp (command line)', () => {
  it('is listed in --help with its --url and default', async () => {
    const { code, out } = await cli(['--help']);
    expect(code).toBe(0);
    expect(out).toContain('pigeonhole mcp [--url URL]             an MCP server on stdio (for MCP clients that start a command)');
    expect(out).toContain('whose tools drive the sandbox at URL (default http://localhost:8025)');
  });

  it('refuses an unknown option or a URL that is not http(s) with exit code 2 and says why', async () => {
    expect(await cli(['mcp', '--port', '1'])).toEqual({ code: 2, out: '', err: 'pigeonhole: mcp: unknown option "--port" (mcp takes --url URL)' });
    expect(await cli(['mcp', '--url=localhost:8025'])).toEqual({
      code: 2,
      out: '',
      err: 'pigeonhole: mcp: --url: "localhost:8025" is not an http or https URL',
    });
    expect(await cli(['mcp', '--url', 'not a url'])).toEqual({
      code: 2,
      out: '',
      err: 'pigeonhole: mcp: --url: "not a url" is not a URL such as http://localhost:8025',
    });
  });
});
