/**
 * Test support: where `../shared/` is, and whether tests that need it run.
 * Without `../shared/` those suites skip with a visible message; with
 * DLG_REQUIRE_SHARED=1 a missing `../shared/` is a failure instead.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import fc from 'fast-check';
import { decToks, encToks } from '../src/tokens/index.js';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..');
export const SHARED = process.env.DLG_SHARED_DIR ?? resolve(ROOT, '..', 'shared');
export const HAVE_SHARED = existsSync(join(SHARED, 'SPEC.md'));
export const FIXTURES = join(ROOT, 'test', 'fixtures');

if (!HAVE_SHARED) {
  if (process.env.DLG_REQUIRE_SHARED === '1') {
    throw new Error(`DLG_REQUIRE_SHARED=1 but ${SHARED} is missing: the conformance suites cannot run`);
  }
  // Said once per run, by global-setup.ts.
}

/** Path inside ../shared/. */
export function shared(...parts: string[]): string {
  return join(SHARED, ...parts);
}

/** Read a text file as UTF-8. */
export function readText(path: string): string {
  return readFileSync(path, 'utf8');
}

/** What `fn` throws, or `undefined` when it returns. */
export function thrown(fn: () => unknown): unknown {
  try {
    fn();
  } catch (e) {
    return e;
  }
  return undefined;
}

/** The seed and run counts of property tests (see fc-seed.ts). */
export { DEFAULT_FC_SEED, FC_SCALE, FC_SEED, fcParams } from './fc-seed.js';

/**
 * One case of the reference's conformance files (`dsl.json`, `reply.json`): the reference's
 * function name, its arguments, and the expected value or the Python error it raised.
 */
export interface ConformanceCase {
  fn: string;
  args: unknown[];
  kwargs?: Record<string, unknown>;
  note?: string;
  expected?: unknown;
  error?: string;
}

/**
 * The reference's middle cut by its definition, from the whole encoding: the first
 * ceil(room / 2) and last floor(room / 2) ids around the mark's ids (room = k minus the mark).
 */
export function definitionalCut(s: string, k: number, mark = ' … '): string {
  if (k <= 0) return '';
  const ids = encToks(s);
  if (ids.length <= k) return s;
  const m = encToks(mark).slice(0, k);
  const room = k - m.length;
  const a = Math.ceil(room / 2);
  const b = Math.floor(room / 2);
  return decToks([...ids.slice(0, a), ...m, ...(b > 0 ? ids.slice(ids.length - b) : [])]);
}

/**
 * Texts at the pre-tokeniser's corners, for generated joins in the token suites: letters by
 * case, contractions, digit runs, white space of every kind (\r\n, runs before letters and
 * numbers, U+0085, U+2028, U+3000), punctuation with [\r\n/], fences, marks, CJK, astral letters
 * and emoji, a lone surrogate, a long run and a URL.
 */
export const PIECE_UNITS: readonly string[] = [
  'a',
  'Z',
  'word',
  'Hello',
  "'s",
  "'re",
  "'",
  'ſ',
  '7',
  '12345',
  '²',
  ' ',
  '   ',
  '\t',
  '\n',
  '\r\n',
  '\n\n  ',
  '\u00a0',
  '\u2028',
  '\u0085',
  '\u3000',
  '.',
  '//',
  '):',
  '(',
  '/',
  '```',
  '¶',
  '…',
  '\u0301',
  '中文',
  '東',
  'é',
  '😀',
  '𝐀',
  '\ud800',
  'x'.repeat(20),
  'https://example.org/a/b',
];

/**
 * Milliseconds of CPU time this process has used (user + system). Guards against work that
 * grows out of all proportion (a quadratic scan, a backtracking expression) compare it before
 * and after: unlike the clock, it does not grow when other processes load the machine.
 */
export function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/** Strings of up to `maxLength` pieces, each drawn from `alphabet` (characters or short runs). */
export function textOf(alphabet: readonly string[], maxLength: number): fc.Arbitrary<string> {
  return fc.array(fc.constantFrom(...alphabet), { maxLength }).map((parts) => parts.join(''));
}
