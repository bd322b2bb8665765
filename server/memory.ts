import v8 from 'node:v8';

/**
 * Under sustained load V8 lets the old generation grow to about four times what is live before
 * it collects (its growing factor follows how cheap collection has been). For a server that
 * holds a compact index and mostly short-lived request garbage, that headroom was most of the
 * resident memory: 282 MB at 100,000 captures with about 130 MB live. Growing by at most 30 %
 * between full collections keeps the process near what it really uses (202 MB in the same
 * run), for a few more incremental mark-compacts (28 instead of 8 over the fill) and no
 * measurable loss of throughput (bench/README.md). The flag is read at every collection, so
 * setting it at start-up takes effect.
 */
const HEAP_GROWING_PERCENT = 30;

export function boundHeapGrowth(percent = HEAP_GROWING_PERCENT): void {
  v8.setFlagsFromString(`--heap-growing-percent=${percent}`);
}
