/**
 * Exact o200k_base encoding, decoding and counting (SPEC §2): the results of Python
 * `tiktoken` with `o200k_base` and `disallowed_special=()` — text that looks like a special
 * token (`<|endoftext|>`) is ordinary text. Checked against `conformance/tokens.json` and the
 * `len_toks` cases of `dsl.json`. Counts are tokens; string positions UTF-16 code units.
 */
import { InvalidArgumentError } from '../errors.js';
import { encodeFrom } from './bpe.js';
import { countFrom } from './fronts.js';
import { tbl, type Table } from './ranks.js';

const UTF8_DEC = new TextDecoder('utf-8', { ignoreBOM: true });

function checkIds(ids: readonly number[], where: string, t: Table): void {
  if (!Array.isArray(ids)) throw new InvalidArgumentError(`${where}: ids must be an array of token ids, got ${typeof ids}`);
  for (let k = 0; k < ids.length; k++) {
    const id = ids[k];
    const ok = typeof id === 'number' && Number.isInteger(id) && ((id >= 0 && id < t.lens.length && t.lens[id]! > 0) || t.special.has(id));
    if (!ok) throw new InvalidArgumentError(`${where}: ${String(id)} at index ${k} is not an o200k_base token id`);
  }
}

/** UTF-8 decode (invalid byte runs -> U+FFFD, as Python's errors='replace') of id lists. */
/** UTF-8 decode (invalid byte runs -> U+FFFD, as Python's errors='replace') of id lists. */
export function decodeLists(lists: ReadonlyArray<readonly number[]>, t: Table): string {
  let total = 0;
  for (const ids of lists) for (const id of ids) total += t.lens[id] || t.special.get(id)!.length;
  const out = new Uint8Array(total);
  let at = 0;
  for (const ids of lists) {
    for (const id of ids) {
      const len = t.lens[id] || 0;
      if (len > 0) {
        const off = t.offs[id]!;
        for (let i = 0; i < len; i++) out[at + i] = t.bytes[off + i]!;
        at += len;
      } else {
        const sp = t.special.get(id)!;
        out.set(sp, at);
        at += sp.length;
      }
    }
  }
  return UTF8_DEC.decode(out);
}

/** Throw `InvalidArgumentError` naming `where` unless `s` is a string. */
export function checkText(s: unknown, where: string, what = 'text'): asserts s is string {
  if (typeof s !== 'string') throw new InvalidArgumentError(`${where}: ${what} must be a string, got ${s === null ? 'null' : typeof s}`);
}

/**
 * Encode text as o200k_base token ids, exactly as Python
 * `tiktoken.get_encoding('o200k_base').encode(s, disallowed_special=())` (SPEC §2;
 * fixture `tokens.json`). Special-token text is encoded as ordinary text.
 * Lone surrogates are encoded as U+FFFD (as tiktoken does for Python surrogates).
 * @param s the text (any string; may be empty).
 * @returns a fresh array of token ids (integers in [0, 199997]).
 * @throws InvalidArgumentError when `s` is not a string.
 */
export function encToks(s: string): number[] {
  checkText(s, 'encToks');
  const out: number[] = [];
  if (s.length > 0) encodeFrom(s, 0, out, tbl());
  return out;
}

/**
 * Decode token ids to text as Python `enc.decode(ids)` does (UTF-8 with `errors='replace'`:
 * each invalid byte run becomes U+FFFD; a leading BOM is kept). The special tokens
 * `<|endoftext|>` (199999) and `<|endofprompt|>` (200018) decode to their text.
 * Source: SPEC §2; fixture `tokens.json` (`decodes`, cuts inside multi-byte characters).
 * @param ids token ids.
 * @returns the decoded string.
 * @throws InvalidArgumentError when `ids` is not an array or holds a value that is not an
 *   o200k_base token id (Python raises KeyError there).
 */
export function decToks(ids: readonly number[]): string {
  const t = tbl();
  checkIds(ids, 'decToks', t);
  return decodeLists([ids], t);
}

/**
 * Number of o200k_base tokens in `s` (the reference's `len_toks`; SPEC §2), equal to
 * `encToks(s).length` without building the id list.
 * @param s the text.
 * @returns a token count (>= 0).
 * @throws InvalidArgumentError when `s` is not a string.
 */
export function lenToks(s: string): number {
  checkText(s, 'lenToks');
  if (s.length === 0) return 0;
  return countFrom(s, tbl());
}
