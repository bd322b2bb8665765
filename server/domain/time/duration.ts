const UNITS: Record<string, number> = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };
const PART = /(\d+)(ms|s|m|h|d|w)/gy;

/** Parses "30s", "15m", "2h", "1d", "1w" and sums like "1d12h" into milliseconds; null if not one. */
export function parseDuration(text: string): number | null {
  const value = text.trim();
  if (value === '') return null;
  PART.lastIndex = 0;
  let total = 0;
  let end = 0;
  for (let match = PART.exec(value); match; match = PART.exec(value)) {
    total += Number(match[1]) * UNITS[match[2]!]!;
    end = PART.lastIndex;
  }
  return end === value.length ? total : null;
}
