import type { Fs } from './disk/fs.ts';

/**
 * The reserve step of openStore (open-store.ts): a file of `size` bytes kept so that, on a full disk,
 * a deletion can still write what it needs (a tombstone, meta.json): it is given up then, and
 * made again once there is room.
 */
export class Reserve {
  constructor(
    private readonly file: string,
    private readonly size: number,
    private readonly fs: Fs,
  ) {}

  /** Whether the reserve was given up (or could not be made) and should be made again. */
  missing = true;
  private making: Promise<void> | null = null;

  ensure(): Promise<void> {
    this.making ??= this.make().finally(() => (this.making = null));
    return this.making;
  }

  private async make(): Promise<void> {
    if (this.size === 0) {
      this.missing = false;
      return;
    }
    const present = await this.fs.stat(this.file).catch(() => null);
    if (present && present.size === this.size) {
      this.missing = false;
      return;
    }
    try {
      await this.fs.writeFile(this.file, Buffer.alloc(this.size));
      this.missing = false;
    } catch {
      await this.fs.unlink(this.file).catch(() => undefined);
    }
  }

  /** Gives the space up; false when there was none to give. */
  async release(): Promise<boolean> {
    const present = await this.fs.stat(this.file).catch(() => null);
    if (!present) return false;
    await this.fs.unlink(this.file);
    this.missing = true;
    return true;
  }
}
