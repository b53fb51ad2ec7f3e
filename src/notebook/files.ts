/**
 * Node file I/O for dialogs: read an `.ipynb` file into a {@link Dialog}, write one back
 * atomically, write any output only when its bytes change, and describe file-system errors
 * in words. The text rules live in read.ts and write.ts (SPEC §7); this module only moves
 * bytes. It is the one notebook module allowed to import `node:` modules (not browser-safe).
 *
 * Reading and writing notebooks come in an async form (`readIpynb`, `writeIpynb`) and a sync
 * form (`readIpynbSync`, `writeIpynbSync`) with the same behaviour.
 */
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import writeFileAtomic from 'write-file-atomic';
import type { Dialog } from '../dialog/dialog.js';
import { DlgError, InvalidArgumentError, NotebookError } from '../errors.js';
import { dumpsIpynb, readsIpynbBytes, type ReadOptions, type WriteOptions } from './index.js';

/** Phrases for the file-system error codes met most often. */
const FS_REASONS: Readonly<Record<string, string>> = {
  ENOENT: 'no such file or directory',
  EACCES: 'permission denied',
  EPERM: 'operation not permitted',
  EISDIR: 'is a directory',
  ENOTDIR: 'a component of the path is not a directory',
  EROFS: 'read-only file system',
  ENOSPC: 'no space left on device',
  EEXIST: 'file exists',
  ENAMETOOLONG: 'file name too long',
  ELOOP: 'too many levels of symbolic links',
};

/** The `code` of a Node file-system error (`'ENOENT'`, ...), when it has one. */
function errorCode(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === 'string' ? code : undefined;
}

/**
 * What went wrong in a file-system call, in words and without Node's syscall and path: a short
 * phrase for common codes (`ENOENT` gives `'no such file or directory'`, `EACCES` `'permission
 * denied'`, also EPERM, EISDIR, ENOTDIR, EROFS, ENOSPC, EEXIST, ENAMETOOLONG, ELOOP), else the
 * error's own message (or `String(err)` for a non-Error).
 */
export function describeFileError(err: unknown): string {
  const code = errorCode(err);
  return (code !== undefined ? FS_REASONS[code] : undefined) ?? (err instanceof Error ? err.message : String(err));
}

/**
 * A file operation failed. The message is `FILE: cannot OPERATION: CODE: REASON` (code and
 * reason as Node's error message gives them when the code has no phrase); `cause` is the
 * original error. A {@link NotebookError}, so `file` names the file.
 */
export class FileAccessError extends NotebookError {
  /** What was attempted: `'read'`, `'write'`, `'read the existing output'`. */
  readonly operation: string;
  /** Node's error code (`'ENOENT'`, ...), when there is one. */
  readonly code: string | undefined;
  /** {@link describeFileError} of the cause: the message without code, syscall or path. */
  readonly reason: string;

  constructor(operation: string, file: string, cause: unknown) {
    const code = errorCode(cause);
    const reason = describeFileError(cause);
    const known = code !== undefined && FS_REASONS[code] !== undefined;
    super(`cannot ${operation}: ${known ? `${code}: ${reason}` : reason}`, file);
    this.operation = operation;
    this.code = code;
    this.reason = reason;
    Object.defineProperty(this, 'cause', { value: cause, enumerable: false, configurable: true, writable: true });
  }
}

/** Reject a path that is not a non-empty string (Node's own message for `null` named no file). */
function checkPath(path: unknown, fn: string): asserts path is string {
  if (typeof path !== 'string' || path === '') {
    throw new InvalidArgumentError(`${fn}: path must be a non-empty string, got ${path === '' ? 'an empty string' : path === null ? 'null' : typeof path}`);
  }
}

function ioError(what: string, path: string, e: unknown): NotebookError {
  if (e instanceof DlgError) return e as NotebookError;
  return new FileAccessError(what, path, e);
}

/**
 * Read a notebook file (strict UTF-8, then `readsIpynb`; SPEC §7). The file is only read,
 * never modified. `dialog.name` is `path`.
 * @param path file path.
 * @param opts `newId`: id source for cells that need a fresh id (see `readsIpynb`).
 * @throws NotebookError naming `path` if the file cannot be read (missing, a directory, no
 *   permission) or is not a valid notebook (see `readsIpynbBytes`); InvalidArgumentError
 *   when `path` is not a non-empty string.
 */
export async function readIpynb(path: string, opts: ReadOptions = {}): Promise<Dialog> {
  checkPath(path, 'readIpynb');
  let bytes: Uint8Array;
  try {
    bytes = await readFile(path);
  } catch (e) {
    throw ioError('read', path, e);
  }
  return readsIpynbBytes(bytes, path, opts);
}

/** Synchronous {@link readIpynb}. */
export function readIpynbSync(path: string, opts: ReadOptions = {}): Dialog {
  checkPath(path, 'readIpynbSync');
  let bytes: Uint8Array;
  try {
    bytes = readFileSync(path);
  } catch (e) {
    throw ioError('read', path, e);
  }
  return readsIpynbBytes(bytes, path, opts);
}

/**
 * Write a dialog as nbformat text (`dumpsIpynb`, validated first unless `opts.validate` is
 * false). Without `path` nothing is written. With `path` the text is written as UTF-8
 * atomically: to a temporary file in the same directory, then renamed over `path`
 * (write-file-atomic; an existing file's mode is kept), so readers never see a partial file.
 * @returns the notebook text (a JS string ending with `"\n"`), in both cases.
 * @throws NotebookError from validation, or naming `path` when writing fails;
 *   InvalidArgumentError when `path` is given but is not a non-empty string.
 */
export async function writeIpynb(dialog: Dialog, path?: string, opts: WriteOptions = {}): Promise<string> {
  if (path !== undefined) checkPath(path, 'writeIpynb');
  const text = dumpsIpynb(dialog, opts);
  if (path !== undefined) {
    try {
      await writeFileAtomic(path, text, { encoding: 'utf8' });
    } catch (e) {
      throw ioError('write', path, e);
    }
  }
  return text;
}

/** Synchronous {@link writeIpynb}. */
export function writeIpynbSync(dialog: Dialog, path?: string, opts: WriteOptions = {}): string {
  if (path !== undefined) checkPath(path, 'writeIpynbSync');
  const text = dumpsIpynb(dialog, opts);
  if (path !== undefined) {
    try {
      writeFileAtomic.sync(path, text, { encoding: 'utf8' });
    } catch (e) {
      throw ioError('write', path, e);
    }
  }
  return text;
}

/** What {@link writeIfChanged} did: wrote the file, found it identical, or (dry run) would write it. */
export type WriteIfChangedResult = 'written' | 'unchanged' | 'would write';

/** Options of {@link writeIfChanged}. */
export interface WriteIfChangedOptions {
  /**
   * The bytes known to be at `path` already, which saves reading them (e.g. when the output is
   * the input just read); `null` when the file is known not to exist. Default: read `path`.
   */
  current?: Uint8Array | null;
  /** Compare only: write nothing, and return `'would write'` where a write would happen. */
  dryRun?: boolean;
}

/**
 * Write `data` to `path` unless the file already holds exactly these bytes, so an unchanged
 * output keeps its modification time and a second run reports `'unchanged'`. The write is
 * atomic (a temporary file in the same directory renamed over `path`, write-file-atomic; an
 * existing file's mode is kept), so readers never see a partial file.
 * @param path the file to write.
 * @param data the contents: bytes, or a string written as UTF-8.
 * @param opts `current` (bytes already known to be at `path`) and `dryRun`.
 * @returns `'unchanged'` (same bytes already there), `'written'`, or with `dryRun`
 *   `'would write'` (missing or different).
 * @throws FileAccessError with operation `'read the existing output'` when `path` exists but
 *   cannot be read (a missing file or a missing directory on the way means "absent"), or
 *   `'write'` when writing fails; InvalidArgumentError when `path` is not a non-empty string.
 */
export async function writeIfChanged(path: string, data: string | Uint8Array, opts: WriteIfChangedOptions = {}): Promise<WriteIfChangedResult> {
  checkPath(path, 'writeIfChanged');
  const payload = typeof data === 'string' ? Buffer.from(data, 'utf8') : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  const onDisk = opts.current !== undefined ? opts.current : await existingBytes(path);
  if (onDisk !== null && payload.equals(onDisk)) return 'unchanged';
  if (opts.dryRun === true) return 'would write';
  try {
    await writeFileAtomic(path, payload);
  } catch (e) {
    throw new FileAccessError('write', path, e);
  }
  return 'written';
}

/** The bytes at `path`, or `null` when there is no such file (or a directory on the way is missing). */
async function existingBytes(path: string): Promise<Uint8Array | null> {
  try {
    return await readFile(path);
  } catch (e) {
    const code = errorCode(e);
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    throw new FileAccessError('read the existing output', path, e);
  }
}
