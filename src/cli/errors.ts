/**
 * The command's errors: usage mistakes (exit status 2), files it could not read or write, and
 * failed summaries. Every message names what it is about; none carries a stack trace.
 */
import { DlgError } from '../errors.js';
import { describeFileError } from '../notebook/file-errors.js';

/** A command-line mistake (bad option value, conflicting options): exit status 2. */
export class UsageError extends DlgError {}

/** A file the command could not read, find or write; the message names the file. */
export class CliFileError extends DlgError {}

/** A summary whose summariser failed (or gave an unusable answer); the message names the file. */
export class SummaryFailedError extends DlgError {}

/**
 * `PATH: cannot WHAT: REASON` for a file-system error (REASON from `describeFileError`,
 * without Node's code, syscall or path).
 */
export function fsError(what: string, path: string, err: unknown): CliFileError {
  return new CliFileError(`${path}: cannot ${what}: ${describeFileError(err)}`, { cause: err });
}
