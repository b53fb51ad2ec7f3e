/**
 * Node file I/O for dialogs: read an `.ipynb` file into a {@link Dialog}, write one back
 * atomically, write any output only when its bytes change, and describe file-system errors
 * in words. The text rules live in read.ts and write.ts (SPEC §7); this module only moves
 * bytes. It is the one notebook module allowed to import `node:` modules (not browser-safe).
 *
 * Reading and writing notebooks come in an async form (`readIpynb`, `writeIpynb`) and a sync
 * form (`readIpynbSync`, `writeIpynbSync`) with the same behaviour.
 */
import { randomBytes } from 'node:crypto';
import {
  chownSync,
  closeSync,
  constants,
  fchmodSync,
  fsync,
  lstatSync,
  mkdirSync,
  open as openFile,
  readFileSync,
  readdirSync,
  renameSync,
  statSync,
  unlinkSync,
  writeSync,
  type Stats,
} from 'node:fs';
import { lstat, open, readFile, readlink, realpath } from 'node:fs/promises';
import { basename, dirname, join, resolve } from 'node:path';
import writeFileAtomic from 'write-file-atomic';
import type { Dialog } from '../dialog/dialog.js';
import { DlgError, InvalidArgumentError, NotebookError } from '../errors.js';
import { dumpsIpynb, readsIpynbBytes, type ReadOptions, type WriteOptions } from './index.js';

import { FS_REASONS, describeFileError, errorCode } from './file-errors.js';

export { describeFileError } from './file-errors.js';

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
    const known = code !== undefined && Object.hasOwn(FS_REASONS, code);
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
  /**
   * A symbolic link at `path`: `'follow'` (default) keeps the link and writes its target
   * atomically (a dangling link's target is created); `'refuse'` fails with code `ESYMLINK`
   * and writes nothing.
   */
  symlinks?: 'follow' | 'refuse';
  /** Create the missing folders on the way to `path` (default false). */
  mkdir?: boolean;
}

/** Temporary files of this module: `.<name>.dlg-compact-<pid>-<hex>.tmp` beside the file written. */
const TEMP_NAME = /^\..+\.dlg-compact-(\d+)-[0-9a-f]{8}\.tmp$/;

/** The temporary name used while writing `dest` (in the same folder, so the rename is atomic). */
export function tempPathFor(dest: string): string {
  return join(dirname(dest), `.${basename(dest)}.dlg-compact-${process.pid}-${randomBytes(4).toString('hex')}.tmp`);
}

/** True when `name` (a file name, no folder) is a temporary file of {@link writeIfChanged}. */
export function isTempName(name: string): boolean {
  return TEMP_NAME.test(name);
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return errorCode(e) === 'EPERM';
  }
}

/** Folders already cleaned of stale temporary files by this process. */
const cleaned = new Set<string>();

/**
 * Remove the temporary files that a killed run left in `dir`: those named by
 * {@link tempPathFor} whose process is gone. Each folder is looked at once per process; a
 * failure to list or remove is ignored (it never stops a write).
 */
function removeStaleTemps(dir: string): void {
  if (cleaned.has(dir)) return;
  cleaned.add(dir);
  removeTempsIn(dir, (pid) => pid !== process.pid && !processAlive(pid));
}

/**
 * Remove from `dir` the temporary files of {@link tempPathFor} whose process id `which`
 * accepts. A failure to list or remove is ignored: a file gone already, or not ours to
 * remove, is never a reason to stop a write or an interrupt.
 */
function removeTempsIn(dir: string, which: (pid: number) => boolean): void {
  let names: string[];
  try {
    names = readdirSync(dir);
  } catch {
    return;
  }
  for (const name of names) {
    const m = TEMP_NAME.exec(name);
    if (m === null || !which(Number(m[1]))) continue;
    try {
      unlinkSync(join(dir, name));
    } catch {
      // see above
    }
  }
}

/** Folders this process writes into: those the command plans to write ({@link noteOutputFolders}) and those written. */
const outputFolders = new Set<string>();

/** Remember the folders of `paths` (files about to be written) for {@link removeOwnTemps}. */
export function noteOutputFolders(paths: Iterable<string>): void {
  for (const p of paths) outputFolders.add(dirname(resolve(p)));
}

/**
 * Remove, synchronously, the temporary files of this process ({@link tempPathFor}, named with
 * its process id, so those of its worker threads too) from the folders it writes into: for an
 * interrupt (Ctrl-C), which may come while a write is half done. Failures are ignored.
 */
export function removeOwnTemps(): void {
  for (const dir of outputFolders) removeTempsIn(dir, (pid) => pid === process.pid);
}

/**
 * Milliseconds a write waits with its temporary file written and not yet renamed, from
 * `DLG_COMPACT_TEST_HOLD_WRITE_MS` (0 without it): a test hook, so that a test can interrupt
 * the command while a temporary file exists.
 */
const HOLD_WRITE_MS = Math.max(0, Number(process.env.DLG_COMPACT_TEST_HOLD_WRITE_MS ?? 0) || 0);

/** The file a symbolic link finally names (resolved even when that file does not exist yet). */
async function linkTarget(path: string): Promise<string> {
  try {
    return await realpath(path);
  } catch (e) {
    if (errorCode(e) !== 'ENOENT') throw e;
  }
  let p = resolve(path);
  for (let hops = 0; hops < 40; hops++) {
    const st = await lstat(p).catch(() => null);
    if (st === null) return join(await realpath(dirname(p)).catch(() => dirname(p)), basename(p));
    if (!st.isSymbolicLink()) return p;
    p = resolve(dirname(p), await readlink(p));
  }
  throw Object.assign(new Error('too many levels of symbolic links'), { code: 'ELOOP' });
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Write into an existing file that is not a regular file (a character device such as
 * `/dev/null` or a terminal, a FIFO) where it is: no temporary file, no rename. A FIFO is
 * opened without blocking, so one that nobody reads fails at once (ENXIO), and a reader that
 * stops reading for 30 s fails the write (ETIMEDOUT) rather than hanging the run.
 */
async function writeInPlace(path: string, payload: Buffer, fifo: boolean): Promise<void> {
  const fh = await open(path, fifo ? constants.O_WRONLY | constants.O_NONBLOCK : constants.O_WRONLY);
  try {
    let off = 0;
    let idleSince = Date.now();
    while (off < payload.length) {
      try {
        const { bytesWritten } = await fh.write(payload, off, payload.length - off);
        off += bytesWritten;
        idleSince = Date.now();
      } catch (e) {
        if (errorCode(e) !== 'EAGAIN') throw e;
        if (Date.now() - idleSince > 30_000) throw Object.assign(new Error('timed out'), { code: 'ETIMEDOUT' });
        await sleep(5);
      }
    }
  } finally {
    await fh.close();
  }
}

/** Flush a file's data to the disk in Node's thread pool, while this thread goes on. */
function flush(fd: number): Promise<void> {
  return new Promise((done, fail) => fsync(fd, (e) => (e === null ? done() : fail(e))));
}

/** Create the new file `path` for writing (`wx`) in Node's thread pool; its descriptor. */
function create(path: string, mode: number): Promise<number> {
  return new Promise((done, fail) => openFile(path, 'wx', mode, (e, fd) => (e === null ? done(fd) : fail(e))));
}

/**
 * Write `payload` to the regular file (or new file) `dest` atomically: a temporary file beside
 * it ({@link tempPathFor}), flushed, given the old file's mode (and owner, when run as root),
 * then renamed over `dest`. The temporary file never outlives a failed write.
 *
 * The calls that take microseconds on a local disk (write into the page cache, chmod, close,
 * rename) are made directly, where a round trip through Node's thread pool would cost more
 * than the call; the two that can take milliseconds, creating the file (a new inode and a
 * journal entry) and the flush, run in the pool while this thread goes on.
 */
async function writeAtomic(dest: string, payload: Buffer, old: Stats | null): Promise<void> {
  const tmp = tempPathFor(dest);
  outputFolders.add(dirname(tmp));
  const fd = await create(tmp, old ? old.mode & 0o7777 : 0o666);
  try {
    try {
      for (let off = 0; off < payload.length; ) off += writeSync(fd, payload, off, payload.length - off);
      if (old) {
        fchmodSync(fd, old.mode & 0o7777);
        if (process.getuid?.() === 0) {
          try {
            chownSync(tmp, old.uid, old.gid);
          } catch {
            // the owner is kept where it can be; the write goes on either way
          }
        }
      }
      await flush(fd);
      if (HOLD_WRITE_MS > 0) await sleep(HOLD_WRITE_MS);
    } finally {
      closeSync(fd);
    }
    renameSync(tmp, dest);
  } catch (e) {
    try {
      unlinkSync(tmp);
    } catch {
      // not there (the open failed) or already renamed
    }
    throw e;
  }
}

/**
 * Write `data` to `path` unless the file already holds exactly these bytes, so an unchanged
 * output keeps its modification time and a second run reports `'unchanged'`.
 *
 * - A regular file (or a new one) is written atomically: a temporary file
 *   `.<name>.dlg-compact-<pid>-<hex>.tmp` in the same folder, renamed over `path` (the old
 *   file's mode is kept), so readers never see a partial file. Temporary files left in that
 *   folder by a killed run (their process gone) are removed first (not under `dryRun`).
 * - A symbolic link is kept and its target written atomically (`symlinks: 'follow'`), or
 *   refused (`'refuse'`, code `ESYMLINK`).
 * - An existing file that is not a regular file (a character device, a terminal, a FIFO) is
 *   written where it is, never replaced and never compared (so always `'written'`); a FIFO
 *   without a reader fails at once (ENXIO) instead of waiting.
 *
 * The quick calls (looking at `path`, reading a regular file to compare, the folder listing of
 * the temporary-file clean-up, writing into the temporary file, the rename) are made on the
 * calling thread; creating the temporary file and flushing it run in Node's thread pool, and
 * only those are waited for.
 * @param path the file to write.
 * @param data the contents: bytes, or a string written as UTF-8.
 * @param opts `current`, `dryRun`, `symlinks`, `mkdir` ({@link WriteIfChangedOptions}).
 * @returns `'unchanged'` (same bytes already there), `'written'`, or with `dryRun`
 *   `'would write'` (missing or different).
 * @throws FileAccessError naming `path` (never the temporary file) with operation
 *   `'read the existing output'` when `path` exists but cannot be read, or `'write'` when
 *   writing fails (a directory: EISDIR); InvalidArgumentError when `path` is not a non-empty
 *   string.
 */
export async function writeIfChanged(path: string, data: string | Uint8Array, opts: WriteIfChangedOptions = {}): Promise<WriteIfChangedResult> {
  checkPath(path, 'writeIfChanged');
  const payload = typeof data === 'string' ? Buffer.from(data, 'utf8') : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  const fail = (e: unknown) => new FileAccessError('write', path, e);
  let lst: Stats | null;
  try {
    lst = lstatSync(path);
  } catch (e) {
    const code = errorCode(e);
    if (code !== 'ENOENT' && code !== 'ENOTDIR') throw fail(e);
    lst = null;
  }
  let st = lst;
  let dest = path;
  if (lst?.isSymbolicLink()) {
    if (opts.symlinks === 'refuse') throw fail(Object.assign(new Error('is a symbolic link'), { code: 'ESYMLINK' }));
    try {
      st = statSync(path, { throwIfNoEntry: false }) ?? null;
    } catch {
      st = null; // a loop or a link into a folder that cannot be entered: resolved below
    }
    if (st === null || st.isFile()) {
      try {
        dest = await linkTarget(path);
      } catch (e) {
        throw fail(e);
      }
    }
  }
  if (st !== null && !st.isFile()) {
    if (st.isDirectory()) throw fail(Object.assign(new Error('is a directory'), { code: 'EISDIR' }));
    if (opts.dryRun === true) return 'would write';
    try {
      await writeInPlace(path, payload, st.isFIFO());
    } catch (e) {
      throw fail(e);
    }
    return 'written';
  }
  if (opts.dryRun !== true) removeStaleTemps(dirname(dest));
  const onDisk = opts.current !== undefined ? opts.current : st === null ? null : existingBytes(dest, path);
  if (onDisk !== null && payload.equals(onDisk)) return 'unchanged';
  if (opts.dryRun === true) return 'would write';
  try {
    if (opts.mkdir === true) {
      try {
        mkdirSync(dirname(dest), { recursive: true });
      } catch (e) {
        // A file where a folder should be: say so (mkdir's own word is "file exists").
        throw errorCode(e) === 'EEXIST' ? Object.assign(new Error('not a directory'), { code: 'ENOTDIR' }) : e;
      }
    }
    await writeAtomic(dest, payload, st);
  } catch (e) {
    throw fail(e);
  }
  return 'written';
}

/** The bytes at `file`, or `null` when there is no such file (or a directory on the way is missing). */
function existingBytes(file: string, shown: string): Uint8Array | null {
  try {
    return readFileSync(file);
  } catch (e) {
    const code = errorCode(e);
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    throw new FileAccessError('read the existing output', shown, e);
  }
}
