/** Why the store could not write: what /readyz, the 507 answers and SMTP's 452 say. */
export type StorageProblem = 'full' | 'read-only' | 'missing' | 'error';

/**
 * A write the store could not make. Nothing it covered was acknowledged; the store keeps
 * trying and is healthy again by itself once the cause is gone.
 */
export class StorageError extends Error {
  constructor(
    readonly problem: StorageProblem,
    /** The file or folder the failed operation named. */
    readonly path: string,
    readonly code: string | undefined,
    /** What a person reads: "the disk is full", "the file system is read-only", ... */
    readonly reason: string,
  ) {
    super(`${reason} (${path})`);
  }
}

/** Content of a capture that cannot be read back: its stored bytes are damaged or gone. */
export class DamagedContent extends Error {
  constructor(
    readonly path: string,
    readonly reason: string,
  ) {
    super(`${reason} (${path})`);
  }
}

/** Turns an error from a file operation into a StorageError that says what went wrong. */
export function storageError(error: unknown, path: string): StorageError {
  if (error instanceof StorageError) return error;
  const code = (error as NodeJS.ErrnoException).code;
  switch (code) {
    case 'ENOSPC':
      return new StorageError('full', path, code, 'the disk is full');
    case 'EDQUOT':
      return new StorageError('full', path, code, 'the disk quota is used up');
    case 'EROFS':
      return new StorageError('read-only', path, code, 'the file system is read-only');
    case 'EACCES':
    case 'EPERM':
      return new StorageError('read-only', path, code, 'the data directory is not writable (permission denied)');
    case 'ENOENT':
      return new StorageError('missing', path, code, 'the data directory or one of its folders is missing');
    default:
      return new StorageError('error', path, code, `${code ?? 'write'} error: ${(error as Error).message ?? String(error)}`);
  }
}

/**
 * Start-up cannot go on: the data directory may not be written and there is nothing a read-only
 * start could show (it is empty, or holds Pigeonhole 0.1's layout, which must be moved first).
 * Carries the failed operation's code, syscall and path, for the start-failure message.
 */
export class DataDirNotWritable extends Error {
  readonly code: string;
  readonly syscall: string;
  readonly path: string;

  constructor(
    readonly dataDir: string,
    cause: NodeJS.ErrnoException,
    readonly why: 'empty' | 'older layout',
  ) {
    super(`the data directory ${dataDir} is not writable (${cause.code})`);
    this.code = cause.code ?? 'EROFS';
    this.syscall = cause.syscall ?? 'open';
    this.path = cause.path ?? dataDir;
  }
}
