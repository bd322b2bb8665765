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

/**
 * The young generation's two semispaces double (from 1 MB) whenever many objects survive a
 * scavenge, up to 16 MB each, and stay that size for good. Loading the modules and then a large
 * inbox made them grow and left 32 MB resident in an idle process (178 MB after a restart on
 * 100,000 captures, 141 MB with them held at 1 MB). V8 reads its growth factor at each growth,
 * so setting it to 1 at run time holds them wherever Pigeonhole runs as its own process
 * (`--max-semi-space-size` would need to be on the command line of every way it is launched,
 * and a cap set by watching collections came too late: modules load in one synchronous stretch).
 */
export function boundYoungGeneration(): void {
  v8.setFlagsFromString('--semi-space-growth-factor=1');
}
