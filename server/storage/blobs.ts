import { copyFile, mkdir, readdir, readFile, rename, rm, rmdir, stat, unlink, writeFile } from 'node:fs/promises';
import path from 'node:path';

/**
 * Message bodies, raw MIME and attachments: plain files kept out of the JSON segments
 * (design.md, Storage), named `<seq>.<name>` in folders of a thousand messages each, so no
 * directory grows without bound and a capture costs no folder of its own.
 */
export class BlobStore {
  private readonly folders = new Set<string>();

  constructor(private readonly root: string) {}

  private async ensureFolder(seq: number): Promise<void> {
    const folder = this.folder(seq);
    if (this.folders.has(folder)) return;
    await mkdir(folder, { recursive: true });
    this.folders.add(folder);
  }

  private folder(seq: number): string {
    return path.join(this.root, String(Math.floor(seq / 1000)).padStart(5, '0'));
  }

  file(seq: number, name: string): string {
    return path.join(this.folder(seq), `${seq}.${safeName(name)}`);
  }

  async write(seq: number, name: string, data: string | Uint8Array): Promise<void> {
    await this.ensureFolder(seq);
    await writeFile(this.file(seq, name), data);
  }

  /** Moves an uploaded temporary file in (a rename; a copy across file systems). */
  async adopt(seq: number, name: string, source: string): Promise<void> {
    await this.ensureFolder(seq);
    const target = this.file(seq, name);
    try {
      await rename(source, target);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EXDEV') throw error;
      await copyFile(source, target);
      await unlink(source);
    }
  }

  read(seq: number, name: string): Promise<Buffer> {
    return readFile(this.file(seq, name));
  }

  async readText(seq: number, name: string): Promise<string | null> {
    try {
      return await readFile(this.file(seq, name), 'utf8');
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') return null;
      throw error;
    }
  }

  async size(seq: number, name: string): Promise<number> {
    return (await stat(this.file(seq, name))).size;
  }

  /** Removes folders left empty (after a reset), so a cleared store leaves nothing behind. */
  async pruneEmptyFolders(): Promise<void> {
    const names = await readdir(this.root).catch(() => [] as string[]);
    await Promise.all(
      names.map(async (name) => {
        const folder = path.join(this.root, name);
        // Forgotten first: a folder that turns out not to be empty is simply made again.
        this.folders.delete(folder);
        await rmdir(folder).catch(() => undefined);
      }),
    );
  }

  /** Deletes a message's files by name. */
  async remove(seq: number, names: readonly string[]): Promise<void> {
    await Promise.all(names.map((name) => rm(this.file(seq, name), { force: true })));
  }
}
function safeName(name: string): string {
  if (!/^[A-Za-z0-9._-]+$/.test(name) || name.startsWith('.')) throw new Error(`unsafe blob name: ${name}`);
  return name;
}
