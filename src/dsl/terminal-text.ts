/**
 * Terminal control sequences dropped from tool results and cell outputs (clean profile;
 * docs/differences.md rule 39). Programs that think they write to a terminal colour their output
 * (`ESC [ 1 m`), set the window title and make links (`ESC ] 0 ; title BEL`, `ESC ] 8 ; ; url
 * ESC \`) and ring the bell: none of it is text, and in a Markdown document or a model's context
 * it is noise (`^[[1m^[[36mfaststripe^[[m`). The reference removes only the colour codes of cell
 * outputs (SPEC §4, `stripAnsi`), and only there.
 */

/** C0 controls other than tab, line feed and carriage return, and DEL. */
const STRAY = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]/;

/** The longest string an OSC (`ESC ]`) sequence is looked for its end in (a title, a link's URL). */
const OSC_REACH = 4096;

/**
 * The end (exclusive, UTF-16 units) of the escape sequence that starts with the `ESC` at `i` of
 * `s`, or `i + 1` (the `ESC` alone) when what follows is no complete sequence:
 * - CSI, `ESC [` parameters (`0`–`?`), intermediates (space–`/`) and a final `@`–`~`;
 * - OSC, `ESC ]` … ended by BEL or `ESC \` within {@link OSC_REACH} units (and within the line);
 * - a character-set choice `ESC (`, `ESC )`, `ESC *`, `ESC +` and the character after it;
 * - any other `ESC` and one character in `0`–`~` (`ESC =`, `ESC 7`, `ESC \`, …).
 */
function sequenceEnd(s: string, i: number): number {
  const n = s.length;
  const c = s.charCodeAt(i + 1);
  if (c === 0x5b) {
    let j = i + 2;
    while (j < n && s.charCodeAt(j) >= 0x30 && s.charCodeAt(j) <= 0x3f) j++;
    while (j < n && s.charCodeAt(j) >= 0x20 && s.charCodeAt(j) <= 0x2f) j++;
    const f = s.charCodeAt(j);
    return j < n && f >= 0x40 && f <= 0x7e ? j + 1 : i + 1;
  }
  if (c === 0x5d) {
    const to = Math.min(n, i + OSC_REACH);
    for (let j = i + 2; j < to; j++) {
      const d = s.charCodeAt(j);
      if (d === 0x07) return j + 1;
      if (d === 0x1b && s.charCodeAt(j + 1) === 0x5c) return j + 2;
      if (d === 0x0a) break;
    }
    return i + 1;
  }
  if (c === 0x28 || c === 0x29 || c === 0x2a || c === 0x2b) return i + 2 < n ? i + 3 : i + 1;
  return c >= 0x30 && c <= 0x7e ? i + 2 : i + 1;
}

/**
 * `s` without terminal control sequences (CSI, OSC, character-set choices and the other
 * two-character escapes, see {@link sequenceEnd}) and without the C0 controls other than tab,
 * line feed and carriage return (a lone `ESC`, BEL, backspace, DEL). Everything else is kept as
 * it is, a hyperlink's visible text included. Linear time; `s` itself when it holds none.
 */
export function dropTerminalControls(s: string): string {
  if (!STRAY.test(s)) return s;
  const parts: string[] = [];
  let last = 0;
  const n = s.length;
  for (let i = 0; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c >= 0x20 && c !== 0x7f) continue;
    if (c === 0x09 || c === 0x0a || c === 0x0d) continue;
    parts.push(s.slice(last, i));
    last = c === 0x1b ? sequenceEnd(s, i) : i + 1;
    i = last - 1;
  }
  parts.push(s.slice(last));
  return parts.join('');
}
