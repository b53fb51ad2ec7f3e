/**
 * Notebook content objects (SPEC §7): dialogs to and from the plain JSON objects typed
 * `INotebookContent` from `@jupyterlab/nbformat` that JupyterLab front-end code holds (that
 * package is imported for its types only; nothing of it is loaded at run time). They reuse the
 * text writer and the reader; plain objects carry JS numbers, so number kinds (`1.0` vs `1`)
 * and integers beyond 2^53 are only kept by the text functions.
 */
import type * as nbformat from '@jupyterlab/nbformat';
import { cloneJson } from '../dialog/cells.js';
import type { Dialog } from '../dialog/dialog.js';
import { NotebookError } from '../errors.js';
import { firstUnsafeInteger } from './json-text.js';
import { readNotebookValue, type ReadOptions } from './read.js';
import { dumpsIpynb } from './write.js';

/** Options of {@link toNotebookContent}. */
export interface NotebookContentOptions {
  /**
   * What to do with an integer outside JS's safe range (|n| > 2^53 − 1), which a plain JSON
   * object can only hold as a `number` that is in general rounded and that reads back as a
   * float: `'round'` (default) takes the nearest double, as `JSON.parse` (and so JupyterLab)
   * does; `'throw'` refuses with a NotebookError.
   */
  unsafeIntegers?: 'round' | 'throw';
}

/**
 * The dialog as a plain notebook JSON object (`nbformat.INotebookContent`, the shape JupyterLab
 * front ends hold, e.g. from `model.toJSON()` / `model.fromJSON()`): exactly what
 * `JSON.parse` makes of `dumpsIpynb`'s text, so keys, line-split sources and texts,
 * dropped transient keys and prompt cells are as nbformat writes them (SPEC §7).
 *
 * Plain JSON means JS numbers: a float that is integral (`1.0`) becomes the number `1` (its
 * float kind is lost; read back it is an int), and integers beyond ±(2^53 − 1) become the
 * nearest double (see {@link NotebookContentOptions.unsafeIntegers}). Keep the notebook text
 * when those matter.
 *
 * @param dialog the dialog; not modified. It is validated first (`validateDialog`).
 * @param opts `unsafeIntegers: 'throw'` to refuse integers outside the safe range.
 * @returns a new object; nothing in it is shared with the dialog.
 * @throws NotebookError from `validateDialog`, or (with `unsafeIntegers: 'throw'`) naming the
 *   first integer outside the safe range.
 */
export function toNotebookContent(dialog: Dialog, opts: NotebookContentOptions = {}): nbformat.INotebookContent {
  const text = dumpsIpynb(dialog);
  if (opts.unsafeIntegers === 'throw') {
    const bad = firstUnsafeInteger(text);
    if (bad !== undefined) {
      throw new NotebookError(`the integer ${bad} is outside the safe integer range of JS numbers (±(2^53 − 1)); keep the notebook text instead`, dialog.name);
    }
  }
  return JSON.parse(text) as nbformat.INotebookContent;
}

/**
 * A dialog from a notebook JSON object (`nbformat.INotebookContent`), for front-end code that
 * already holds the notebook model's JSON (JupyterLab's `model.toJSON()`). The same reading
 * rules as `readsIpynb` (same code): cell ids, prompts split at the first reply
 * separator (SPEC §10.2 included), flags taken out of metadata, everything else kept.
 *
 * The object is deep-copied first, so the caller's object is not modified and not shared.
 * Numbers are JS numbers: a safe integer reads as an int, any other number as a float, so a
 * notebook holding `1.0` (read by `JSON.parse` as `1`) is written back with `1`. Where number
 * kinds matter, read the text with `readsIpynb` instead. Values may also be
 * `LosslessNumber`s (an object from `parseJson`), which keep their kind.
 *
 * @param nb the notebook object (nbformat 4; any minor version; sources as strings or lists).
 * @param name names the notebook in error messages and becomes `dialog.name`; default `'<notebook>'`.
 * @param opts `newId`: id source for cells that need a fresh id (no `parser`: nothing is parsed).
 * @returns a new {@link Dialog}.
 * @throws NotebookError as `readsIpynb` does for a value that is not an nbformat 4
 *   notebook (not an object, `nbformat` not 4, `cells` not a list, a bad cell).
 */
export function fromNotebookContent(nb: nbformat.INotebookContent, name = '<notebook>', opts: Omit<ReadOptions, 'parser'> = {}): Dialog {
  return readNotebookValue(cloneJson(nb as unknown), name, opts.newId);
}
