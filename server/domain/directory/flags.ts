/**
 * Normalises flags given as a list or a comma-separated string: split on commas, trimmed,
 * empties dropped, duplicates removed, input order kept (docs/api-contract.md §3 and §5).
 */
export function normaliseFlags(input: string | readonly string[] | undefined): string[] {
  if (input === undefined) return [];
  const items = typeof input === 'string' ? [input] : input;
  const out: string[] = [];
  for (const item of items) {
    for (const part of item.split(',')) {
      const flag = part.trim();
      if (flag !== '' && !out.includes(flag)) out.push(flag);
    }
  }
  return out;
}

/** Adds flags to a list in place, keeping order; true if anything changed. */
export function addFlags(target: string[], flags: readonly string[]): boolean {
  let changed = false;
  for (const flag of flags) {
    if (!target.includes(flag)) {
      target.push(flag);
      changed = true;
    }
  }
  return changed;
}

/**
 * A list of strings printed the way Python prints it, as the real service's messages do
 * (docs/api-contract.md §5): ['a', 'b'], each item in single quotes, or in double quotes when it
 * holds a single quote and no double quote.
 */
export function pythonListRepr(items: readonly string[]): string {
  return `[${items.map(pythonStrRepr).join(', ')}]`;
}

function pythonStrRepr(value: string): string {
  const quote = value.includes("'") && !value.includes('"') ? '"' : "'";
  let out = quote;
  for (const ch of value) {
    const code = ch.codePointAt(0)!;
    if (ch === '\\') out += '\\\\';
    else if (ch === quote) out += `\\${quote}`;
    else if (ch === '\n') out += '\\n';
    else if (ch === '\r') out += '\\r';
    else if (ch === '\t') out += '\\t';
    else if (code < 0x20 || code === 0x7f) out += `\\x${code.toString(16).padStart(2, '0')}`;
    else if (code >= 0x80 && code < 0xa0) out += `\\x${code.toString(16).padStart(2, '0')}`;
    else out += ch;
  }
  return out + quote;
}
