/**
 * Terminal control sequences dropped from tool results and cell outputs (clean profile;
 * docs/differences.md rule 39). Programs that think they write to a terminal colour their output
 * (`ESC [ 1 m`), set the window title and make links (`ESC ] 0 ; title BEL`, `ESC ] 8 ; ; url
 * ESC \`) and ring the bell: none of it is text, and in a Markdown document or a model's context
 * it is noise (`^[[1m^[[36mfaststripe^[[m`). The reference removes only the colour codes of cell
 * outputs (SPEC §4, `stripAnsi`), and only there.
 */

/** C0 controls other than tab, line feed and carriage return, DEL, and the C1 controls but NEL (a line break to Python). */
const STRAY = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x84\x86-\x9f]/;

/** The longest string a control string (OSC, DCS, …) is looked for its end in (a title, a link's URL). */
const STRING_REACH = 4096;

/**
 * Whether the unit `c` after `ESC` opens a control string, ended by BEL or ST (`ESC \`): OSC
 * `]`, DCS `P`, SOS `X`, PM `^`, APC `_`.
 */
const opensString = (c: number): boolean => c === 0x5d || c === 0x50 || c === 0x58 || c === 0x5e || c === 0x5f;

/**
 * The control sequences of one text, found left to right: `end(i)` is where the sequence that
 * starts with the `ESC` (or C1 CSI, U+009B) at `i` ends (exclusive), or `i + 1` (that unit alone)
 * when what follows is no complete sequence:
 * - CSI, `ESC [` (or U+009B) parameters (`0`–`?`), intermediates (space–`/`) and a final `@`–`~`;
 * - a control string (see {@link opensString}) ended by BEL or `ESC \` on its line within
 *   {@link STRING_REACH} units; with no end on its line it runs to the line's end;
 * - a character-set choice `ESC (`, `ESC )`, `ESC *`, `ESC +` and the ASCII character after it;
 * - any other `ESC` and one character in `0`–`~` (`ESC =`, `ESC 7`, `ESC \`, …).
 * A control string's search remembers how far it found no end, so a text of many unended ones
 * is read once, not once per string (linear time).
 */
function sequences(s: string): (i: number) => number {
  const n = s.length;
  // [from, upTo) holds no BEL and no `ESC \`; `nl` is the line feed the last search stopped at (-1: the reach).
  let from = -1;
  let upTo = -1;
  let nl = -1;
  const stringEnd = (i: number): number => {
    const to = Math.min(n, i + STRING_REACH);
    let j = i + 2;
    if (j >= from && j < upTo) {
      if (nl >= 0) return nl; // no end before that line feed: the string runs to it
      j = upTo;
    }
    for (; j < to; j++) {
      const d = s.charCodeAt(j);
      if (d === 0x07) return j + 1;
      if (d === 0x1b && s.charCodeAt(j + 1) === 0x5c) return j + 2;
      if (d === 0x0a) {
        from = i + 2;
        upTo = j;
        nl = j;
        return j;
      }
    }
    from = i + 2;
    upTo = to;
    nl = -1;
    return to >= n ? n : i + 1;
  };
  return (i: number): number => {
    const c0 = s.charCodeAt(i);
    const csiAt = c0 === 0x9b ? i + 1 : s.charCodeAt(i + 1) === 0x5b ? i + 2 : -1;
    if (c0 === 0x1b || c0 === 0x9b) {
      if (csiAt >= 0) {
        let j = csiAt;
        while (j < n && s.charCodeAt(j) >= 0x30 && s.charCodeAt(j) <= 0x3f) j++;
        while (j < n && s.charCodeAt(j) >= 0x20 && s.charCodeAt(j) <= 0x2f) j++;
        const f = s.charCodeAt(j);
        return j < n && f >= 0x40 && f <= 0x7e ? j + 1 : i + 1;
      }
      if (c0 === 0x9b) return i + 1;
    }
    if (c0 !== 0x1b) return i + 1;
    const c = s.charCodeAt(i + 1);
    if (opensString(c)) return stringEnd(i);
    if (c === 0x28 || c === 0x29 || c === 0x2a || c === 0x2b) {
      const d = s.charCodeAt(i + 2);
      return d >= 0x20 && d <= 0x7e ? i + 3 : i + 1;
    }
    return c >= 0x30 && c <= 0x7e ? i + 2 : i + 1;
  };
}

/**
 * `s` without terminal control sequences (CSI, control strings such as OSC, character-set
 * choices and the other two-character escapes, see {@link sequences}) and without the C0
 * controls other than tab, line feed and carriage return (a lone `ESC`, BEL, backspace, DEL) or
 * the C1 controls (U+0080–U+009F) but NEL, which Python's lines break at. Everything else is kept as it is, a hyperlink's visible text
 * included. Linear time; `s` itself when it holds none.
 */
export function dropTerminalControls(s: string): string {
  if (!STRAY.test(s)) return s;
  const end = sequences(s);
  const parts: string[] = [];
  let last = 0;
  const n = s.length;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if ((c >= 0x20 && c < 0x7f) || c > 0x9f || c === 0x09 || c === 0x0a || c === 0x0d || c === 0x85) continue;
    parts.push(s.slice(last, i));
    last = end(i);
    i = last - 1;
  }
  parts.push(s.slice(last));
  return parts.join('');
}
