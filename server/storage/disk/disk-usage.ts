/**
 * How many bytes the data directory takes on disk (allocated blocks, as `du` counts them) and
 * how many files it holds, cheap enough to ask on every metrics scrape: the store keeps a few
 * hundred files, whatever it holds, so a walk is short; a figure is reused for `maxAgeMs`, and
 * concurrent askers share one walk.
 */
export class DiskUsage {
  private cached: { bytes: number; files: number; at: number } | null = null;
  private running: Promise<{ bytes: number; files: number }> | null = null;

  constructor(
    private readonly measure: () => Promise<{ bytes: number; files: number }>,
    private readonly maxAgeMs = 5000,
  ) {}

  /** Forgets the cached figure (captures were written or deleted). */
  changed(): void {
    this.cached = null;
  }

  async bytes(): Promise<number> {
    return (await this.usage()).bytes;
  }

  async files(): Promise<number> {
    return (await this.usage()).files;
  }

  private usage(): Promise<{ bytes: number; files: number }> {
    if (this.cached && Date.now() - this.cached.at < this.maxAgeMs) return Promise.resolve(this.cached);
    this.running ??= this.measure()
      .then((usage) => (this.cached = { ...usage, at: Date.now() }))
      .finally(() => (this.running = null));
    return this.running;
  }
}
