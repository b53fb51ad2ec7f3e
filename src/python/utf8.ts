/**
 * UTF-8 lengths of JavaScript strings, as Python's `len(s.encode('utf-8', 'replace'))` gives
 * them (a lone surrogate counts 3, as the U+FFFD it becomes): for token budgets (a text of at
 * most k bytes has at most k tokens) and for the sizes the clean profile shows.
 */

/** A UTF-16 unit above U+007F (searched natively to step over runs of ASCII). */
const NON_ASCII = /[^\x00-\x7f]/g;

/** Consecutive ASCII units after which the count searches for the next non-ASCII unit natively. */
const ASCII_RUN = 32;

/**
 * UTF-8 bytes of `s` (a lone surrogate counts 3, as U+FFFD), counted no further than `limit`:
 * returns `limit + 1` once the count exceeds it. A text of at most `maxToks` bytes has at
 * most `maxToks` tokens (a token holds at least one byte).
 */
export function utf8Within(s: string, limit: number): number {
  if (!Number.isInteger(limit)) return countWithin(s, limit);
  // Every UTF-16 unit is at least one byte: a text longer than the limit is over it.
  if (s.length > limit) return limit + 1;
  return Math.min(utf8Length(s), limit + 1);
}

/** {@link utf8Within} unit by unit, stopping once over `limit` (for limits that are not integers). */
function countWithin(s: string, limit: number): number {
  let bytes = 0;
  for (let i = 0; i < s.length && bytes <= limit; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) bytes += 1;
    else if (c < 0x800) bytes += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      bytes += 4;
      i++;
    } else bytes += 3;
  }
  return Math.min(bytes, limit + 1);
}

/** UTF-8 length of `s` in bytes (a lone surrogate counts 3, as the U+FFFD it encodes to). */
export function utf8Length(s: string): number {
  const n = s.length;
  // Each unit is one byte, plus what the non-ASCII ones add: U+0080–U+07FF one more, other
  // units two more, a surrogate pair (two units) two more in all.
  let bytes = n;
  const re = NON_ASCII;
  re.lastIndex = 0;
  let i = re.test(s) ? re.lastIndex - 1 : n;
  let ascii = 0;
  while (i < n) {
    const c = s.charCodeAt(i);
    if (c < 0x80) {
      // A long run of ASCII: find its end by a native search.
      if (++ascii === ASCII_RUN) {
        re.lastIndex = i;
        i = re.test(s) ? re.lastIndex - 1 : n;
        ascii = 0;
      } else i++;
      continue;
    }
    ascii = 0;
    if (c < 0x800) bytes += 1;
    else if (c >= 0xd800 && c <= 0xdbff && (s.charCodeAt(i + 1) & 0xfc00) === 0xdc00) {
      bytes += 2;
      i++;
    } else bytes += 2;
    i++;
  }
  return bytes;
}

/**
 * A host's decoder of UTF-8 bytes: the string a fatal `TextDecoder` (BOM kept) gives for
 * them, or `undefined` to leave the decoding to it (for invalid UTF-8 it must decline, so
 * that the error is the one the reader reports without a host).
 */
export type Utf8Decoder = (bytes: Uint8Array) => string | undefined;

let hostDecoder: Utf8Decoder | undefined;

/**
 * Register (or with `undefined` remove) a faster decoder of UTF-8 bytes for reading
 * notebooks; it changes only speed. Node's host registers one (src/host/node.ts); without it
 * `TextDecoder` decodes.
 */
export function setUtf8Decoder(fn: Utf8Decoder | undefined): void {
  hostDecoder = fn;
}

const strictDecoder = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * Strict UTF-8 decoding, byte order mark kept: the host's decoder when one is registered and
 * takes the bytes, else `TextDecoder`. Throws `TextDecoder`'s `TypeError` for invalid UTF-8.
 */
export function decodeUtf8(bytes: Uint8Array): string {
  const fast = hostDecoder === undefined ? undefined : hostDecoder(bytes);
  return fast ?? strictDecoder.decode(bytes);
}
