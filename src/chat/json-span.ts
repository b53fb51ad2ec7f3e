/**
 * Spans of values inside JSON text, found without parsing it into values: used to edit one
 * value of a tool block's JSON body (SPEC §6) and leave every other character as written.
 *
 * Offsets are UTF-16 code-unit indices. The scanner trusts the text to be JSON (it checks
 * structure, not every token); callers parse the text first.
 */

/** Index of the first character at or after `i` that is not JSON whitespace (space, tab, LF, CR). */
export function skipJsonWhitespace(s: string, i: number): number {
  while (i < s.length) {
    const c = s.charCodeAt(i);
    if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) break;
    i++;
  }
  return i;
}

/** Index just past the JSON string starting at `i` (which must hold `"`), or -1 if it never closes. */
export function jsonStringEnd(s: string, i: number): number {
  for (let k = i + 1; k < s.length; k++) {
    const c = s.charCodeAt(k);
    if (c === 0x5c) k++;
    else if (c === 0x22) return k + 1;
  }
  return -1;
}

/**
 * Index just past the JSON value starting at `i`, or -1 when it does not end. Strings are
 * skipped as units, objects and arrays by bracket depth, other tokens (numbers, `true`,
 * `false`, `null`) up to the next delimiter or whitespace.
 */
export function jsonValueEnd(s: string, i: number): number {
  const c = s.charCodeAt(i);
  if (c === 0x22) return jsonStringEnd(s, i);
  if (c === 0x7b || c === 0x5b) {
    let depth = 0;
    for (let k = i; k < s.length; k++) {
      const d = s.charCodeAt(k);
      if (d === 0x22) {
        k = jsonStringEnd(s, k);
        if (k < 0) return -1;
        k--;
      } else if (d === 0x7b || d === 0x5b) depth++;
      else if (d === 0x7d || d === 0x5d) {
        depth--;
        if (depth === 0) return k + 1;
      }
    }
    return -1;
  }
  let k = i;
  while (k < s.length) {
    const d = s.charCodeAt(k);
    if (d === 0x2c || d === 0x7d || d === 0x5d || d === 0x20 || d === 0x09 || d === 0x0a || d === 0x0d) break;
    k++;
  }
  return k > i ? k : -1;
}

/**
 * Span `[start, end)` of the value of the last top-level key `key` of the JSON object text `s`
 * (the one a parser keeps when keys repeat; leading and trailing whitespace allowed), or null
 * when `s` is not an object or lacks the key.
 */
export function lastKeyValueSpan(s: string, key: string): [number, number] | null {
  let i = skipJsonWhitespace(s, 0);
  if (s.charCodeAt(i) !== 0x7b) return null;
  i = skipJsonWhitespace(s, i + 1);
  let found: [number, number] | null = null;
  if (s.charCodeAt(i) === 0x7d) return null;
  for (;;) {
    if (s.charCodeAt(i) !== 0x22) return null;
    const ke = jsonStringEnd(s, i);
    if (ke < 0) return null;
    let k: unknown;
    try {
      k = JSON.parse(s.slice(i, ke));
    } catch {
      return null;
    }
    i = skipJsonWhitespace(s, ke);
    if (s.charCodeAt(i) !== 0x3a) return null;
    i = skipJsonWhitespace(s, i + 1);
    const ve = jsonValueEnd(s, i);
    if (ve < 0) return null;
    if (k === key) found = [i, ve];
    i = skipJsonWhitespace(s, ve);
    const c = s.charCodeAt(i);
    if (c === 0x2c) {
      i = skipJsonWhitespace(s, i + 1);
      continue;
    }
    return c === 0x7d ? found : null;
  }
}
