/**
 * The Python values a literal can denote ({@link PyValue}) and the error raised for text that
 * is not a literal ({@link NotALiteralError}); SPEC §7. Produced by `literalEval`
 * (`literal-eval.ts`), printed by `pyReprValue`/`pyStrValue` (`literal-repr.ts`).
 */
import { DlgError } from '../errors.js';

/** CPython 3.11's limit on int <-> decimal text conversion (`sys.int_info.default_max_str_digits`). */
export const MAX_INT_DIGITS = 4300;
/** The smallest magnitude with more than {@link MAX_INT_DIGITS} decimal digits. */
export const INT_DIGIT_LIMIT = 10n ** BigInt(MAX_INT_DIGITS);

/**
 * A Python `str` whose code points a JS string cannot spell unambiguously: it holds a high
 * surrogate code point directly followed by a low surrogate code point (written with escapes,
 * e.g. `'\ud83d\ude00'`, which Python keeps as TWO code points, while JS would read the same
 * UTF-16 units as one emoji). `units` is the UTF-16 text; `splits` lists (ascending) the UTF-16
 * offsets `i` where `units[i-1]` (high) and `units[i]` (low) are separate code points.
 * Only created when `splits` is non-empty; every other str is a plain JS `string`.
 */
export class PyStr {
  readonly kind = 'str';
  constructor(
    readonly units: string,
    readonly splits: readonly number[],
  ) {}
}

/** A Python `bytes` value (`bytes` holds the byte values 0..255). */
export class PyBytes {
  readonly kind = 'bytes';
  constructor(readonly bytes: Uint8Array) {}
}

/** A Python `complex` value: real and imaginary parts are IEEE doubles (signed zeros kept). */
export class PyComplex {
  readonly kind = 'complex';
  constructor(
    readonly re: number,
    readonly im: number,
  ) {}
}

/** A Python `tuple`. */
export class PyTuple {
  readonly kind = 'tuple';
  constructor(readonly items: readonly PyValue[]) {}
}

/** A Python `list`. */
export class PyList {
  readonly kind = 'list';
  constructor(readonly items: readonly PyValue[]) {}
}

/** A Python `set`: distinct elements (Python equality) in source order, first spelling kept. */
export class PySet {
  readonly kind = 'set';
  constructor(readonly items: readonly PyValue[]) {}
}

/** A Python `dict`: `keys[i]` maps to `values[i]`, in insertion order, keys distinct. */
export class PyDict {
  readonly kind = 'dict';
  constructor(
    readonly keys: readonly PyValue[],
    readonly values: readonly PyValue[],
  ) {}
}

/** The Python `Ellipsis` (`...`) singleton's type; use {@link ELLIPSIS}. */
export class PyEllipsis {
  readonly kind = 'ellipsis';
}

/** Python's `Ellipsis`, the value of the literal `...`. */
export const ELLIPSIS: PyEllipsis = new PyEllipsis();

/**
 * A Python value a literal can produce: `null` = None, `boolean` = bool, `bigint` = int,
 * `number` = float, `string` = str (a {@link PyStr} when JS cannot spell it), and the classes
 * above for bytes, complex, tuple, list, set, dict and Ellipsis.
 */
export type PyValue = null | boolean | bigint | number | string | PyStr | PyBytes | PyComplex | PyTuple | PyList | PySet | PyDict | PyEllipsis;

/**
 * The text is not a Python literal (or Python's `str()` of its value would raise): the
 * reference keeps such text as it is. `position` is a UTF-16 offset into the text given to
 * `literalEval` after its leading spaces and tabs were removed (-1 when not
 * positional); `reason` is a short description.
 */
export class NotALiteralError extends DlgError {
  constructor(
    readonly reason: string,
    readonly position: number,
  ) {
    super(position >= 0 ? `not a Python literal: ${reason} (at offset ${position})` : `not a Python literal: ${reason}`);
  }
}
