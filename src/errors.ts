/**
 * Typed errors raised by dlg-compact. Every error the library throws on bad input is a
 * {@link DlgError} subclass, so callers can tell our diagnoses from programming faults.
 */

/** Base class of every error dlg-compact throws on purpose. */
export class DlgError extends Error {
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
  }
}

/** A value of the wrong type or range was passed (a negative budget, non-string text). */
export class InvalidArgumentError extends DlgError {}

/** A token budget too small for the requested rendering (the reference raises there). */
export class BudgetError extends DlgError {}

/** A continuation document lacks the markers needed to read it back. */
export class DocumentFormatError extends DlgError {}

/** Text that should be JSON is not; `position` is a character offset into the text. */
export class JsonParseError extends DlgError {
  constructor(
    message: string,
    readonly position: number,
  ) {
    super(message);
  }
}

/**
 * A notebook that cannot be read or written. `file` names the file (or `<string>`),
 * `cell` the cell id or index, `field` the offending field when known.
 */
export class NotebookError extends DlgError {
  constructor(
    message: string,
    readonly file: string = '<string>',
    readonly cell?: string | number,
    readonly field?: string,
  ) {
    const where = [file, cell === undefined ? undefined : `cell ${typeof cell === 'number' ? '#' + cell : cell}`, field]
      .filter((x) => x !== undefined)
      .join(': ');
    super(`${where}: ${message}`);
  }
}

/** A compaction strategy refused to replace history (failed, empty or non-shrinking summary). */
export class CompactionRefusedError extends DlgError {}
