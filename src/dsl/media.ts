/**
 * Non-text content in the clean profile: binary payloads become one sized marker such as
 * `[image/png 412 KB]` (never base64, never nothing), and HTML becomes its text. Everything
 * here is linear in the input's length and never throws on malformed data (a base64 payload
 * that does not decode is still sized by its length).
 */
import { utf8Length } from '../python/utf8.js';

/** A payload size as people read it: `N B` below 1 KB, whole `KB` below 1 MB, else `MB` with one decimal. */
export function formatSize(bytes: number): string {
  if (bytes < 1024) return `${bytes} B`;
  if (bytes < 1024 * 1024) return `${Math.round(bytes / 1024)} KB`;
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}

function isB64(c: number): boolean {
  return (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 48 && c <= 57) || c === 43 || c === 47 || c === 45 || c === 95;
}

/** Decoded size of base64 text: 3 bytes per 4 base64 characters (whitespace and `=` not counted). */
export function base64Size(s: string): number {
  // Most payloads hold only base64 characters, `=` and line breaks: a native scan says so, and
  // the base64 characters are the rest once the (few) `=` and line breaks are counted.
  if (s.length >= 256 && !NOT_PLAIN_B64.test(s)) return Math.floor(((s.length - unitsOf(s, '=') - unitsOf(s, '\n')) * 3) / 4);
  return base64SizeAt(s, 0, s.length);
}

/** A UTF-16 unit other than a base64 character, `=` or `\n`. */
const NOT_PLAIN_B64 = /[^A-Za-z0-9+/\-_=\n]/;

/** How many times the one-unit string `c` occurs in `s`. */
function unitsOf(s: string, c: string): number {
  let n = 0;
  for (let i = s.indexOf(c); i >= 0; i = s.indexOf(c, i + 1)) n++;
  return n;
}

/** Base64 characters (1) by code unit below 128. */
const B64_CHAR = new Uint8Array(128);
/** Base64 characters and `=` (the characters of one line of a run), by code unit below 128. */
const RUN_CHAR = new Uint8Array(128);
for (let c = 0; c < 128; c++) {
  B64_CHAR[c] = isB64(c) ? 1 : 0;
  RUN_CHAR[c] = isB64(c) || c === 61 ? 1 : 0;
}

/** {@link base64Size} of `s.slice(a, b)`, without the slice. */
function base64SizeAt(s: string, a: number, b: number): number {
  let n = 0;
  for (let i = a; i < b; i++) {
    const c = s.charCodeAt(i);
    if (c < 128) n += B64_CHAR[c]!;
  }
  return Math.floor((n * 3) / 4);
}

/** Whether the UTF-16 unit `c` is a base64 character or `=`. */
function isRunChar(c: number): boolean {
  return c < 128 && RUN_CHAR[c] === 1;
}

/**
 * Whether `s` holds `len` consecutive base64 characters or `=`: a run that {@link runEnd} can
 * stretch to {@link BASE64_RUN} characters starts with a line at least this long. Looks at
 * every `len`-th unit only, and around those that can belong to a run: a run of `len`
 * units holds at least one of them.
 */
export function hasRunOf(s: string, len: number): boolean {
  const n = s.length;
  const step = Math.max(1, len);
  let done = 0; // units before this are known to hold no run of `len`
  for (let i = step - 1; i < n; ) {
    if (!isRunChar(s.charCodeAt(i))) {
      i += step;
      continue;
    }
    let a = i;
    while (a > done && isRunChar(s.charCodeAt(a - 1))) a--;
    let b = i + 1;
    while (b < n && b - a < len && isRunChar(s.charCodeAt(b))) b++;
    if (b - a >= len) return true;
    // s[b] ends the run (or the text ends): go on from the unit after it.
    done = b + 1;
    i = Math.max(i + step, b + step);
  }
  return false;
}

/** UTF-8 length of a string in bytes (`utf8Length` of the tokenizer). */
export const utf8Size = utf8Length;

/** The marker of a binary payload: `[mime size]`, or `[mime size "label"]` with alt text or a file name. */
export function mediaMarker(mime: string, bytes: number, label?: string): string {
  const l = label?.replace(/\s+/g, ' ').trim();
  return l ? `[${mime} ${formatSize(bytes)} "${l}"]` : `[${mime} ${formatSize(bytes)}]`;
}

const MARKER_LINE =
  /^\[(?:\d+ × )?[a-z0-9.+-]+(?:\/[a-z0-9.+-]+)? \d+(?:\.\d)? (?:B|KB|MB)(?: "[^"\n]*")?(?:, \d+ × [a-z0-9.+-]+\/[a-z0-9.+-]+ \d+(?:\.\d)? (?:B|KB|MB))*\]$/;

/** Is `line` exactly a marker of {@link mediaMarker} (or several outputs' combined marker)? */
export function isMediaMarker(line: string): boolean {
  return line.length < 400 && MARKER_LINE.test(line);
}

/** A base64 run this long (in characters, after joining wrapped lines) is binary data, not text. */
export const BASE64_RUN = 256;
/** Lines of wrapped base64 (as MIME writes it) are at least this long. */
const WRAPPED_LINE = 60;

/** End of a base64 run starting at `i`; wrapped lines (`\n`, `\r\n` or a literal `\n` between long lines) continue it. */
function runEnd(s: string, i: number): number {
  let j = i;
  for (let first = true; ; first = false) {
    const start = j;
    while (j < s.length && isB64(s.charCodeAt(j))) j++;
    while (j < s.length && s.charCodeAt(j) === 61) j++; // '=' padding
    if (j - start < WRAPPED_LINE) {
      // A wrapped run's last line is shorter; a short word on the next line is not part of it.
      if (first || j - start >= 8 || s.charCodeAt(j - 1) === 61) return j;
      return start - (s.charCodeAt(start - 1) === 110 && s.charCodeAt(start - 2) === 92 ? 2 : s.charCodeAt(start - 2) === 13 ? 2 : 1);
    }
    let k = j;
    if (s.charCodeAt(k) === 13) k++;
    if (s.charCodeAt(k) === 10) k++;
    else if (s.charCodeAt(k) === 92 && s.charCodeAt(k + 1) === 110) k += 2; // a JSON-escaped line break
    if (k === j || !isB64(s.charCodeAt(k))) return j;
    j = k;
  }
}

/**
 * Does the run look like base64 rather than one long word: at least two of upper case letters,
 * lower case letters, digits and `+` `/` (a run of one letter repeated is not taken for data)?
 */
function mixed(s: string, a: number, b: number): boolean {
  let kinds = 0;
  let seen = 0;
  for (let i = a; i < b && kinds < 2; i++) {
    const c = s.charCodeAt(i);
    const k = c >= 65 && c <= 90 ? 1 : c >= 97 && c <= 122 ? 2 : c >= 48 && c <= 57 ? 4 : c === 43 || c === 47 ? 8 : 0;
    if (k !== 0 && (seen & k) === 0) {
      seen |= k;
      kinds++;
    }
  }
  return kinds >= 2;
}

/** Whether `data:` (any case) starts at `i`. */
function isDataAt(s: string, i: number): boolean {
  return (
    (s.charCodeAt(i) | 32) === 100 &&
    (s.charCodeAt(i + 1) | 32) === 97 &&
    (s.charCodeAt(i + 2) | 32) === 116 &&
    (s.charCodeAt(i + 3) | 32) === 97 &&
    s.charCodeAt(i + 4) === 58
  );
}

/**
 * Whether `s` holds two wrapped lines in a row as {@link runEnd} joins them: a run of at least
 * {@link WRAPPED_LINE} base64 characters or `=`, then `\r`, `\n`, `\r\n` or a literal `\n`
 * (optionally after `\r`), then a base64 character starting another such run. A run of
 * {@link BASE64_RUN} characters over several lines has this, or else is one long line and a
 * short last line (fewer than WRAPPED_LINE units), whose first line then has at least
 * `BASE64_RUN - 2 - WRAPPED_LINE` units. Looks at every WRAPPED_LINE-th unit and around it,
 * as {@link hasRunOf} does.
 */
export function hasWrappedPair(s: string): boolean {
  const n = s.length;
  let done = 0;
  for (let i = WRAPPED_LINE - 1; i < n; ) {
    if (!isRunChar(s.charCodeAt(i))) {
      i += WRAPPED_LINE;
      continue;
    }
    let a = i;
    while (a > done && isRunChar(s.charCodeAt(a - 1))) a--;
    let b = i + 1;
    while (b < n && isRunChar(s.charCodeAt(b))) b++;
    if (b - a >= WRAPPED_LINE) {
      let k = b;
      if (s.charCodeAt(k) === 13) k++;
      if (s.charCodeAt(k) === 10) k++;
      else if (s.charCodeAt(k) === 92 && s.charCodeAt(k + 1) === 110) k += 2;
      if (k > b && isB64(s.charCodeAt(k))) {
        let e = k + 1;
        while (e < n && e - k < WRAPPED_LINE && isRunChar(s.charCodeAt(e))) e++;
        if (e - k >= WRAPPED_LINE) return true;
      }
    }
    // s[b] ends the run (or the text ends): a later run starts after it.
    done = b + 1;
    i = Math.max(i + WRAPPED_LINE, b + WRAPPED_LINE);
  }
  return false;
}

const DATA_URI = /data:([a-z]+\/[a-z0-9.+-]+)?[^,\s"')]{0,200}?(;base64)?,/giy;

/**
 * Text with its binary payloads replaced by sized markers: a `data:` URI with a base64
 * payload of {@link BASE64_RUN} characters or more becomes `[mime size]` (a Markdown image
 * `![alt](data:…)` as a whole becomes `[mime size "alt"]`), and any other base64 run of that
 * length (mixing two kinds of upper case, lower case, digits and `+` `/`; wrapped lines joined) becomes
 * `[base64 size]`. Shorter runs stay. Linear time.
 */
export function markBinaryRuns(s: string): string {
  // A run this long starts with an unbroken line of WRAPPED_LINE characters (runEnd): without
  // one there is nothing to mark; nor without one line long enough for a run on two lines, or
  // two wrapped lines in a row (most long lines are rules of dashes over a short line).
  if (s.length < BASE64_RUN || !hasRunOf(s, WRAPPED_LINE)) return s;
  if (!hasRunOf(s, BASE64_RUN - 2 - WRAPPED_LINE) && !hasWrappedPair(s)) return s;
  const out: string[] = [];
  let last = 0;
  let i = 0;
  while (i < s.length) {
    const c = s.charCodeAt(i);
    if (!isB64(c)) {
      i++;
      continue;
    }
    // a data: URI
    if ((c === 100 || c === 68) && isDataAt(s, i)) {
      DATA_URI.lastIndex = i;
      const m = DATA_URI.exec(s);
      if (m) {
        const p = i + m[0].length;
        const e = runEnd(s, p);
        if (e - p >= BASE64_RUN && m[2] !== undefined) {
          const mime = (m[1] ?? 'application/octet-stream').toLowerCase();
          let from = i;
          let to = e;
          let label: string | undefined;
          // ![alt](data:…) on one line
          const open = s.lastIndexOf('](', i);
          if (open === i - 2 && s.charCodeAt(e) === 41) {
            const bang = s.lastIndexOf('![', open);
            const alt = bang >= 0 ? s.slice(bang + 2, open) : '';
            if (bang >= 0 && !alt.includes('\n') && open - bang < 300) {
              from = bang;
              to = e + 1;
              label = alt;
            }
          }
          out.push(s.slice(last, from), mediaMarker(mime, base64SizeAt(s, p, e), label));
          last = i = to;
          continue;
        }
      }
    }
    const e = runEnd(s, i);
    if (e - i >= BASE64_RUN && mixed(s, i, e)) {
      out.push(s.slice(last, i), mediaMarker('base64', base64SizeAt(s, i, e)));
      last = e;
    }
    i = Math.max(e, i + 1);
    // skip the rest of a word so a run is only ever recognised from its start
    while (i < s.length && isB64(s.charCodeAt(i))) i++;
  }
  if (last === 0) return s;
  out.push(s.slice(last));
  return out.join('');
}

const BLOCK_TAGS = new Set([
  'br',
  'p',
  'div',
  'tr',
  'li',
  'ul',
  'ol',
  'table',
  'thead',
  'tbody',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'pre',
  'blockquote',
  'hr',
  'section',
  'article',
  'header',
  'footer',
  'dt',
  'dd',
]);
const CELL_TAGS = new Set(['td', 'th']);
const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ', '#39': "'" };

function decodeEntities(s: string): string {
  if (!s.includes('&')) return s;
  return s.replace(/&(#x[0-9a-f]{1,6}|#[0-9]{1,7}|[a-z]{2,8}|#39);/gi, (all, e: string) => {
    const lower = e.toLowerCase();
    if (lower in ENTITIES) return ENTITIES[lower]!;
    if (lower.startsWith('#x') || lower.startsWith('#')) {
      const n = lower.startsWith('#x') ? Number.parseInt(lower.slice(2), 16) : Number.parseInt(lower.slice(1), 10);
      return n > 0 && n <= 0x10ffff && !(n >= 0xd800 && n <= 0xdfff) ? String.fromCodePoint(n) : all;
    }
    return all;
  });
}

/**
 * The text of an HTML fragment, laid out as a browser would show it: `<script>` and `<style>`
 * elements and comments removed, other tags removed; runs of white space (line breaks
 * included) become one space except inside `<pre>`; block tags and `<br>` end a line, so a
 * table row is one line, its cells separated by ` | `; the common character references
 * decoded; blank lines dropped. A `<` that starts no tag stays. Linear time.
 */
export function htmlText(html: string): string {
  const out: string[] = [];
  let i = 0;
  const n = html.length;
  let noGt = false;
  let pre = 0; // depth of <pre> elements: their white space is kept
  let cells = 0; // cells seen in the current table row
  const text = (t: string): void => {
    out.push(pre > 0 ? t : t.replace(/\s+/g, ' '));
  };
  while (i < n) {
    const lt = html.indexOf('<', i);
    if (lt < 0) {
      text(html.slice(i));
      break;
    }
    text(html.slice(i, lt));
    if (html.startsWith('<!--', lt)) {
      const e = html.indexOf('-->', lt + 4);
      i = e < 0 ? n : e + 3;
      continue;
    }
    const m = /^<\/?([a-zA-Z][a-zA-Z0-9-]*)/.exec(html.slice(lt, lt + 40));
    if (!m) {
      out.push('<');
      i = lt + 1;
      continue;
    }
    const gt = noGt ? -1 : html.indexOf('>', lt);
    if (gt < 0) {
      // No '>' follows: this '<' and every later one start no tag (remembered, so the search is not repeated).
      noGt = true;
      out.push('<');
      i = lt + 1;
      continue;
    }
    const name = m[1]!.toLowerCase();
    i = gt + 1;
    if ((name === 'script' || name === 'style') && html[lt + 1] !== '/') {
      const re = name === 'script' ? /<\/script/gi : /<\/style/gi;
      re.lastIndex = i;
      const close = re.exec(html)?.index ?? -1;
      const ce = close < 0 ? -1 : html.indexOf('>', close);
      i = ce < 0 ? n : ce + 1;
      continue;
    }
    const closing = html[lt + 1] === '/';
    if (name === 'pre') pre = closing ? Math.max(0, pre - 1) : pre + 1;
    if (name === 'tr') cells = 0;
    if (BLOCK_TAGS.has(name)) out.push('\n');
    else if (CELL_TAGS.has(name) && !closing && cells++ > 0) out.push(' | ');
  }
  return decodeEntities(out.join(''))
    .split('\n')
    .map((l) => l.replace(/[ \t]+/g, ' ').trim())
    .filter((l) => l !== '')
    .join('\n');
}
