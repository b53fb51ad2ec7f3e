/**
 * Argument checks and value descriptions shared by the Python-semantics modules of this folder
 * (internal: not exported by `python/index.ts`).
 */
import { InvalidArgumentError } from '../errors.js';

/**
 * A short description of `v` for error messages: `null`, `an array`, `an object of class X`,
 * `an object`, or its `typeof`.
 */
export function describe(v: unknown): string {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (typeof v === 'object') {
    const name = (Object.getPrototypeOf(v) as { constructor?: { name?: string } } | null)?.constructor?.name;
    return name ? `an object of class ${name}` : 'an object';
  }
  return typeof v;
}

/** Throw `InvalidArgumentError` naming `fn` unless `s` is a string. */
export function checkStr(fn: string, s: unknown): asserts s is string {
  if (typeof s !== 'string') throw new InvalidArgumentError(`${fn}: expected a string, got ${describe(s)}`);
}

/** `n` in lowercase hexadecimal, zero-padded to `width` digits. */
export function hex(n: number, width: number): string {
  return n.toString(16).padStart(width, '0');
}
