/**
 * Errors located at a dialog cell: library errors raised while rendering or measuring one cell
 * are re-raised as a `NotebookError` naming the dialog, the cell and the field (SPEC §7).
 */
import { CELL_ID_RE, isDialogLike, type DialogLike as Dialog, type MessageLike as Message } from './cells.js';
import { DlgError, InvalidArgumentError, NotebookError } from '../errors.js';

/**
 * Run `f` for message `m` (index `i`) of dialog `d`, locating any library error it raises:
 * a {@link DlgError} other than a `NotebookError` (a `BudgetError` from a code cell's fence, an
 * `InvalidArgumentError` from malformed outputs) is rethrown as a `NotebookError` naming the
 * dialog (`d.name`, `<string>` when unnamed), the cell (its id, or its index `i` when the id was
 * generated on reading and so is not in the file, or is not a valid cell id) and `field`,
 * with the original error as `cause`. Other errors pass through unchanged.
 */
export function atCell<T>(d: Dialog, m: Message, i: number, field: string, f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (!(e instanceof DlgError) || e instanceof NotebookError) throw e;
    // An id that is not in the file (generated on reading) or not a valid id (it may hold
    // control characters, which would reach the terminal raw) is named by the cell's index.
    const cell = m.idGenerated || !CELL_ID_RE.test(m.id) ? i : m.id;
    const err = new NotebookError(e.message, d.name || '<string>', cell, field);
    Object.defineProperty(err, 'cause', { value: e, enumerable: false, configurable: true, writable: true });
    throw err;
  }
}

/** A short description of what `v` is, for an error that says what was expected instead. */
function describeValue(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v !== 'object') return typeof v === 'string' && v.trimStart().startsWith('{') ? 'a string (notebook JSON text?)' : `a ${typeof v}`;
  const o = v as Record<string, unknown>;
  if (Array.isArray(o.cells) && 'nbformat' in o) return 'a notebook JSON object (read it with readsIpynb first)';
  if (Array.isArray(o.cells)) return 'an object with "cells" (notebook JSON? read it with readsIpynb first)';
  return 'an object that is not a Dialog';
}

/**
 * Check that `v` is a dialog (the {@link Dialog} shape: `messages`, `name`, `metadata`,
 * `newId`), else throw an `InvalidArgumentError` saying what was expected and what was given —
 * `null`, raw notebook JSON, a string.
 * @param where the operation's name, which starts the message.
 */
export function requireDialog(v: unknown, where: string): asserts v is Dialog {
  if (!isDialogLike(v)) throw new InvalidArgumentError(`${where}: expected a Dialog, got ${describeValue(v)}`);
}

/**
 * Check every code cell's outputs up front, so that an operation that reads them later (a
 * summary, micro-compaction, a count) fails naming the dialog, the cell and `outputs` rather
 * than an output index alone. The views are cached per message, so this costs nothing extra.
 * @throws NotebookError as {@link atCell}.
 */
export function checkOutputs(d: Dialog): void {
  d.messages.forEach((m, i) => {
    if (m.type === 'code') atCell(d, m, i, 'outputs', () => m.aiOutput);
  });
}
