import path from 'node:path';
import type { Fs } from './fs.ts';

/** What start-up set aside: one entry per damaged file or part of one. */
export interface DamageReport {
  /** The file the damage was found in, relative to the data directory. */
  file: string;
  /** Where the damaged bytes were moved, relative to the data directory (null: nothing to keep). */
  movedTo: string | null;
  /** Records (or pack entries) that could not be read. */
  records: number;
  what: string;
}

/**
 * Sets damaged bytes aside in `<data>/damaged/` instead of refusing to start: each report is a
 * line in the log naming the file, how many records it cost and how to get rid of it.
 */
export class Quarantine {
  readonly reports: DamageReport[] = [];

  constructor(
    private readonly dataDir: string,
    private readonly fs: Fs,
    private readonly log: (line: string) => void,
  ) {}

  /** Keeps `bytes` from `file` (a path inside the data directory) and logs what happened. */
  async keep(file: string, bytes: Buffer | null, records: number, what: string): Promise<void> {
    const relative = path.relative(this.dataDir, file);
    let movedTo: string | null = null;
    if (bytes !== null && bytes.length > 0) {
      const dir = path.join(this.dataDir, 'damaged');
      const name = `${new Date().toISOString().replace(/[:.]/g, '-')}-${relative.replace(/[\\/]/g, '_')}`;
      try {
        await this.fs.mkdir(dir);
        await this.fs.writeFile(path.join(dir, name), bytes);
        movedTo = path.join('damaged', name);
      } catch (error) {
        this.log(`pigeonhole: could not keep the damaged bytes of ${file} in ${dir}: ${(error as Error).message}`);
      }
    }
    this.reports.push({ file: relative, movedTo, records, what });
    const where = movedTo ? `; the damaged bytes were moved to ${path.join(this.dataDir, movedTo)} (delete that file to get rid of them)` : '';
    this.log(`pigeonhole: ${path.join(this.dataDir, relative)}: ${what}, ${records} record${records === 1 ? '' : 's'} could not be read${where}`);
  }
}
