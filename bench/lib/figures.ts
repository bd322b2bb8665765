/** A number with thousands separators and `digits` decimals. */
export function format(value: number, digits = 0): string {
  return value.toLocaleString('en-US', { minimumFractionDigits: digits, maximumFractionDigits: digits });
}

export function mb(bytes: number): string {
  return `${format(bytes / 1024 / 1024, 1)} MB`;
}

/** The median (the mean of the middle two for an even count). */
export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const middle = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** Nearest-rank percentile (0 < p <= 100). */
export function percentileOf(values: readonly number[], p: number): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length, Math.max(1, Math.ceil((p / 100) * sorted.length))) - 1]!;
}

/** A target line, as `- PASS  name: value`. */
export function targetLine(pass: boolean, name: string, value: string): string {
  return `- ${pass ? 'PASS' : 'FAIL'}  ${name}: ${value}`;
}

/** A Markdown table (readable in a terminal, pasteable into bench/README.md); numeric columns right-aligned. */
export function table(header: string[], rows: string[][], rightAligned: boolean[] = header.map((_, i) => i > 0)): string {
  const line = (cells: string[]) => `| ${cells.join(' | ')} |`;
  return [line(header), line(rightAligned.map((right) => (right ? '---:' : '---'))), ...rows.map(line)].join('\n');
}
