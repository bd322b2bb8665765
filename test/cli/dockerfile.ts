/** One Dockerfile instruction: its keyword, flags (`--from=build`, each value of a repeated one) and the rest of the line. */
export interface Instruction {
  keyword: string;
  flags: Record<string, string[]>;
  args: string;
}

export interface Stage {
  image: string;
  name: string | null;
  instructions: Instruction[];
}

/**
 * A small Dockerfile reader, enough for this project's file: comments, line continuations,
 * `FROM image AS name`, leading `--flag=value`s. It is not a full parser (no ARG expansion,
 * no heredocs); the test that uses it fails on anything it does not understand.
 */
export function parseDockerfile(text: string): Stage[] {
  const lines: string[] = [];
  let current = '';
  for (const raw of text.split('\n')) {
    const line = raw.trim();
    if (current === '' && (line === '' || line.startsWith('#'))) continue;
    if (line.endsWith('\\')) {
      current += `${line.slice(0, -1).trim()} `;
      continue;
    }
    lines.push((current + line).trim());
    current = '';
  }
  const stages: Stage[] = [];
  for (const line of lines) {
    const match = /^([A-Z]+)\s+(.*)$/.exec(line);
    if (!match) throw new Error(`not an instruction: ${line}`);
    const keyword = match[1]!;
    let rest = match[2]!;
    const flags: Record<string, string[]> = {};
    for (let flag = /^--([a-z-]+)=(\S+)\s+/.exec(rest); flag; flag = /^--([a-z-]+)=(\S+)\s+/.exec(rest)) {
      (flags[flag[1]!] ??= []).push(flag[2]!);
      rest = rest.slice(flag[0].length);
    }
    if (keyword === 'FROM') {
      const from = /^(\S+)(?:\s+AS\s+(\S+))?$/i.exec(rest);
      if (!from) throw new Error(`bad FROM: ${line}`);
      stages.push({ image: from[1]!, name: from[2] ?? null, instructions: [] });
      continue;
    }
    if (stages.length === 0) throw new Error(`${keyword} before FROM`);
    stages.at(-1)!.instructions.push({ keyword, flags, args: rest });
  }
  return stages;
}

/** The value of a flag given once (`--from=build`); undefined when absent, an error when repeated. */
export function flag(instruction: Instruction, name: string): string | undefined {
  const values = instruction.flags[name];
  if (values && values.length > 1) throw new Error(`--${name} given ${values.length} times: ${instruction.keyword} ${instruction.args}`);
  return values?.[0];
}

/** A Docker duration such as `30s`, `1m30s` or `500ms`, in milliseconds. */
export function durationMs(text: string): number {
  const units: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000 };
  let total = 0;
  const rest = text.replace(/(\d+(?:\.\d+)?)(ms|s|m|h)/g, (_, n: string, unit: string) => {
    total += Number(n) * units[unit]!;
    return '';
  });
  if (rest !== '' || text === '') throw new Error(`not a duration: ${text}`);
  return total;
}

/** `KEY=value KEY2=value` (the ENV form this project uses) as a record. */
export function envOf(stage: Stage): Record<string, string> {
  const env: Record<string, string> = {};
  for (const i of stage.instructions.filter((x) => x.keyword === 'ENV')) {
    for (const pair of i.args.split(/\s+/)) {
      const at = pair.indexOf('=');
      if (at <= 0) throw new Error(`ENV not in KEY=value form: ${i.args}`);
      env[pair.slice(0, at)] = pair.slice(at + 1);
    }
  }
  return env;
}

/** The command of `CMD [...]` or `HEALTHCHECK ... CMD [...]`; only the exec (JSON) form is accepted. */
export function execForm(args: string): string[] {
  const json = args.slice(args.indexOf('['));
  const parsed = JSON.parse(json) as unknown;
  if (!Array.isArray(parsed) || !parsed.every((x) => typeof x === 'string')) throw new Error(`not an exec form: ${args}`);
  return parsed;
}

/**
 * A `.dockerignore` as Docker reads it: `#` comments, `*`, `?` and `**` globs, `!` to bring a path
 * back, the last matching line wins, and a line that matches a folder matches everything in it.
 * Returns whether a path (relative to the build context, `/`-separated) is left out of the context.
 */
export function dockerignored(text: string): (file: string) => boolean {
  const patterns = text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '' && !line.startsWith('#'))
    .map((line) => {
      const negate = line.startsWith('!');
      const glob = (negate ? line.slice(1) : line).trim().replace(/^\/+|\/+$/g, '');
      let source = '';
      for (let i = 0; i < glob.length; i++) {
        const c = glob[i]!;
        if (glob.startsWith('**/', i)) {
          source += '(?:.*/)?';
          i += 2;
        } else if (glob.startsWith('**', i)) {
          source += '.*';
          i += 1;
        } else if (c === '*') source += '[^/]*';
        else if (c === '?') source += '[^/]';
        else source += c.replace(/[.+^${}()|[\]\\]/g, '\\$&');
      }
      return { negate, regex: new RegExp(`^${source}$`) };
    });
  return (file) => {
    const parts = file.split('/');
    const prefixes = parts.map((_, i) => parts.slice(0, i + 1).join('/'));
    let excluded = false;
    for (const { negate, regex } of patterns) {
      if (prefixes.some((p) => regex.test(p))) excluded = !negate;
    }
    return excluded;
  };
}
