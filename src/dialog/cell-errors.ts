/**
 * Errors located at a dialog cell: library errors raised while rendering or measuring one cell
 * are re-raised as a `NotebookError` naming the dialog, the cell and the field (SPEC §7).
 */
import { CELL_ID_RE, type DialogLike as Dialog, type MessageLike as Message } from './cells.js';
import { DlgError, NotebookError } from '../errors.js';

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
