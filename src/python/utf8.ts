/**
 * UTF-8 lengths of JavaScript strings, as Python's `len(s.encode('utf-8', 'replace'))` gives
 * them (a lone surrogate counts 3, as the U+FFFD it becomes): for token budgets (a text of at
 * most k bytes has at most k tokens) and for the sizes the clean profile shows.
 */

/**
 * UTF-8 bytes of `s` (a lone surrogate counts 3, as U+FFFD), counted no further than `limit`:
 * returns `limit + 1` once the count exceeds it. A text of at most `maxToks` bytes has at
 * most `maxToks` tokens (a token holds at least one byte).
 */
export function utf8Within(s: string, limit: number): number {
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
  return utf8Within(s, Number.MAX_SAFE_INTEGER);
}
