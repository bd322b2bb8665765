import { performance } from 'node:perf_hooks';
import { format, median, percentileOf, table } from './figures.ts';
import type { HttpClient } from './http-client.ts';
import { QUERIES } from './search-corpus.ts';

/** One query's figures: `GET /api/messages?q=...`, the first page (50), sequential requests. */
export interface SearchRow {
  label: string;
  q: string;
  hits: number;
  medianMs: number;
  p95Ms: number;
  maxMs: number;
}

/** How many captures match `q` (all of them for ''). */
export async function hitCount(client: HttpClient, q: string): Promise<number> {
  const reply = await client.get(`/api/messages?limit=1${q ? `&q=${encodeURIComponent(q)}` : ''}`);
  if (reply.status !== 200) throw new Error(`GET /api/messages?q=${q}: HTTP ${reply.status}`);
  return (JSON.parse(reply.body) as { total: number }).total;
}

/**
 * Times the search corpus's queries (bench/lib/search-corpus.ts: a common word, a medium one,
 * two words, a rare word, one no capture holds): for each, its hit count, then `requests`
 * sequential `GET /api/messages?q=<query>` (the default page of 50), each of which must answer
 * 200. Calls `onRow` as each query is done.
 */
export async function timeSearches(client: HttpClient, requests: number, signal: AbortSignal, onRow?: (row: SearchRow) => void): Promise<SearchRow[]> {
  const rows: SearchRow[] = [];
  for (const { label, q } of QUERIES) {
    const path = `/api/messages?q=${encodeURIComponent(q)}`;
    const hits = await hitCount(client, q);
    const times: number[] = [];
    for (let i = 0; i < requests; i++) {
      signal.throwIfAborted();
      const t0 = performance.now();
      const reply = await client.get(path);
      times.push(performance.now() - t0);
      if (reply.status !== 200) throw new Error(`GET ${path}: HTTP ${reply.status} ${reply.body.slice(0, 200)}`);
    }
    const row = { label, q, hits, medianMs: median(times), p95Ms: percentileOf(times, 95), maxMs: Math.max(...times) };
    rows.push(row);
    onRow?.(row);
  }
  return rows;
}

/** The median of the slowest query: what the search targets are judged on. */
export function slowestMedian(rows: readonly SearchRow[]): number {
  return Math.max(...rows.map((row) => row.medianMs));
}

/** The rows as a Markdown table (ms). */
export function searchTable(rows: readonly SearchRow[]): string {
  return table(
    ['query', 'q', 'hits', 'median', 'p95', 'max'],
    rows.map((row) => [row.label, `\`${row.q}\``, format(row.hits), format(row.medianMs, 1), format(row.p95Ms, 1), format(row.maxMs, 1)]),
    [false, false, true, true, true, true],
  );
}
