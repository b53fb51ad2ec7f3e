/**
 * Node file I/O for dialogs: read an `.ipynb` file into a {@link Dialog}, write one back
 * atomically. The text rules live in notebook.ts (SPEC §7); this module only moves bytes.
 * It is the one core-adjacent module allowed to import `node:` modules (not browser-safe).
 *
 * Each operation comes in an async form (`readIpynb`, `writeIpynb`) and a sync form
 * (`readIpynbSync`, `writeIpynbSync`) with the same behaviour.
 */
import { readFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import writeFileAtomic from 'write-file-atomic';
import type { Dialog } from '../dialog/dialog.js';
import { DlgError, InvalidArgumentError, NotebookError } from '../errors.js';
import { dumpsIpynb, readsIpynbBytes, type ReadOptions, type WriteOptions } from './ipynb.js';

/** Reject a path that is not a non-empty string (Node's own message for `null` named no file). */
function checkPath(path: unknown, fn: string): asserts path is string {
  if (typeof path !== 'string' || path === '') {
    throw new InvalidArgumentError(`${fn}: path must be a non-empty string, got ${path === '' ? 'an empty string' : path === null ? 'null' : typeof path}`);
  }
}

function ioError(what: string, path: string, e: unknown): NotebookError {
  if (e instanceof DlgError) return e as NotebookError;
  const reason = e instanceof Error ? e.message : String(e);
  const err = new NotebookError(`cannot ${what}: ${reason}`, path);
  Object.defineProperty(err, 'cause', { value: e, enumerable: false });
  return err;
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
