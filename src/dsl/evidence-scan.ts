/**
 * Finding evidence in text, in linear time: URLs, file paths and error names, as the evidence
 * cut of results (`evidence-cut.ts`) and the evidence index (`evidence-index.ts`) see them
 * (docs/differences.md, rules 18 and 29). Hand-written scanners rather than regular
 * expressions, whose backtracking is quadratic on long runs such as `a-a-a-…` or `x.x.x.…`.
 */

/** File extensions a relative path or a bare file name must end in to count as a file. */
const EXTENSIONS = new Set(
  'py ipynb js mjs ts tsx jsx json md txt csv tsv yaml yml toml cfg ini sh html htm css c h cc cpp hpp rs go java rb php sql xml lock log pdf png jpg jpeg gif svg parquet pkl nc zip gz tar'.split(
    ' ',
  ),
);

/** The longest fact taken (UTF-16 units): longer ones are data, not a reference. */
export const FACT_MAX = 200;

/** A piece of evidence: `text` is `line.slice(start, start + length)` unless trimmed. */
export interface Span {
  start: number;
  end: number;
  text: string;
}

const isWordChar = (c: number): boolean => (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95;

/** Characters of a path: letters, digits, `_`, `.`, `@`, `+`, `-`, `~` and `/`. */
function isPathChar(c: number): boolean {
  return isWordChar(c) || c === 46 || c === 64 || c === 43 || c === 45 || c === 126 || c === 47;
}

/**
 * Characters that end a URL: white space, quotes, `<`, `>`, a backtick, `)`, `]`, `\`, `…`, and
 * `{`, a template's field (`https://host/v1/models?key={api_key}` names `https://host/v1/models?key=`).
 */
function endsUrl(c: number): boolean {
  return (
    c <= 32 ||
    c === 34 ||
    c === 39 ||
    c === 60 ||
    c === 62 ||
    c === 96 ||
    c === 41 ||
    c === 93 ||
    c === 92 ||
    c === 123 ||
    c === 0x2026 ||
    c === 0x85 ||
    c === 0xa0
  );
}

/** Whether the text at `e` goes on with a cut mark or `<TRUNCATED>`: what precedes was cut, not whole. */
export function cutAt(text: string, e: number): boolean {
  return text.charCodeAt(e) === 0x2026 || (text.charCodeAt(e) === 32 && text.charCodeAt(e + 1) === 0x2026) || text.startsWith('<TRUNCATED>', e);
}

/** A character reference glued to a URL's end: `&#x27`, `&quot;` … */
const CHAR_REF = /^&(?:#x?[0-9a-fA-F]{1,6}|[a-z]{2,6});?$/;

/** `.`, `,`, `;`, `:`, `!`, `?`, `*` or `|`: trailing punctuation, emphasis or a table bar. */
const isUrlTrail = (c: number): boolean => c === 46 || c === 44 || c === 59 || c === 58 || c === 33 || c === 63 || c === 42 || c === 124;

/**
 * The end of a URL without trailing punctuation, emphasis or a table bar, or a character
 * reference glued to it (a `&` looked for no further back than such a reference reaches, 9 units).
 */
function urlEnd(text: string, a: number, e: number): number {
  for (;;) {
    while (e > a && isUrlTrail(text.charCodeAt(e - 1))) e--;
    let amp = -1;
    for (let k = e - 1, stop = Math.max(a + 1, e - 9); k >= stop; k--) {
      if (text.charCodeAt(k) === 38) {
        amp = k;
        break;
      }
    }
    if (amp < 0 || !CHAR_REF.test(text.slice(amp, e))) return e;
    e = amp;
  }
}

/**
 * Where the scheme of a URL whose `://` is at `i` starts: a whole word of `http`, `https`,
 * `ftp`, `s3` or `gs` (any case) just before it; -1 when there is none.
 */
function schemeStart(text: string, i: number): number {
  let a = i;
  while (a > 0 && a > i - 6 && isWordChar(text.charCodeAt(a - 1))) a--;
  if (i - a < 2) return -1; // the shortest scheme is `s3` or `gs`
  const scheme = text.slice(a, i).toLowerCase();
  if (scheme !== 'http' && scheme !== 'https' && scheme !== 'ftp' && scheme !== 's3' && scheme !== 'gs') return -1;
  if (a > 0 && isWordChar(text.charCodeAt(a - 1))) return -1;
  return a;
}

/** The URL {@link nextUrl} found last: `[foundStart, foundEnd)`. */
let foundStart = 0;
let foundEnd = 0;

/**
 * The next URL of `text` (as {@link urlSpans} gives them) whose `://` is at or after `from`:
 * returns the offset of its `://` (-1 when there is none) and leaves the URL's span in
 * `foundStart` and `foundEnd`. The next search starts 3 units after the offset returned.
 */
function nextUrl(text: string, from: number, skipCut: boolean): number {
  for (let i = text.indexOf('://', from); i >= 0; i = text.indexOf('://', i + 3)) {
    const a = schemeStart(text, i);
    if (a < 0) continue;
    let b = i + 3;
    while (b < text.length && !endsUrl(text.charCodeAt(b))) b++;
    if (b === i + 3) continue;
    const e = urlEnd(text, a, b);
    if (e - a <= FACT_MAX && !(skipCut && cutAt(text, b))) {
      foundStart = a;
      foundEnd = e;
      return b - 3;
    }
    i = b - 3;
  }
  return -1;
}

/**
 * The URLs in `text` (`http`, `https`, `ftp`, `s3` or `gs`, then `://`, up to a character that
 * ends a URL, a template's `{` among them), in order; with `skipCut`, not those a cut mark or
 * `<TRUNCATED>` ends.
 */
export function* urlSpans(text: string, skipCut = false): Generator<Span> {
  for (let i = nextUrl(text, 0, skipCut); i >= 0; i = nextUrl(text, i + 3, skipCut)) {
    const a = foundStart;
    const e = foundEnd;
    yield { start: a, end: e, text: text.slice(a, e) };
  }
}

/** The extension of `name` (after its last dot), lower-cased, or `''`. */
function extension(name: string): string {
  const dot = name.lastIndexOf('.');
  return dot > 0 ? name.slice(dot + 1).toLowerCase() : '';
}

/**
 * Whether a run of path characters around a `/` is a file path: not part of a URL (`//`), not
 * an HTML closing tag (`</td>`); from a root (`/srv/app`, `~/x/y.csv`, `./data/raw`) with two
 * parts or more, or one with an extension; otherwise (`a/b.py`) its last part must have a known
 * extension, so that `x.data/y.data` or `2/math.pi` in code are not taken for paths.
 */
function isPath(p: string, before: number): boolean {
  if (before === 60 || before === 58 || p.includes('//')) return false; // '<', ':'
  const parts = p.split('/').filter((x) => x !== '' && x !== '~' && x !== '.' && x !== '..');
  if (parts.length === 0) return false;
  const last = parts[parts.length - 1]!;
  if (/^(?:~|\.{1,2})?\//.test(p)) return parts.length >= 2 || /^[\w@+-][\w.@+-]*\.[A-Za-z0-9]{1,8}$/.test(last);
  return parts.length >= 2 && EXTENSIONS.has(extension(last));
}

/**
 * The file paths in `text`, in order of kind then position: paths with a folder, by a scan
 * around each `/`, then bare file names with a known extension (`notes.md`), by a scan around
 * each `.`. A run after a `\n`, `\t` or `\r` escape (JSON, a repr) starts after the escape's
 * letter; `self.h`, `this.html`, `cls.py` are attributes, not names. With `skipCut`, not a path
 * that a cut mark or `<TRUNCATED>` ends.
 */
export function* pathSpans(text: string, skipCut = false): Generator<Span> {
  let end = 0;
  for (let i = text.indexOf('/'); i >= 0; i = text.indexOf('/', Math.max(i + 1, end))) {
    let a = i;
    while (a > end && isPathChar(text.charCodeAt(a - 1))) a--;
    if (a > 0 && text.charCodeAt(a - 1) === 92 && 'ntr'.includes(text[a]!)) a++;
    let b = i + 1;
    while (b < text.length && isPathChar(text.charCodeAt(b))) b++;
    end = b;
    let e = b;
    while (e > a && '.-/'.includes(text[e - 1]!)) e--;
    if (e - a > FACT_MAX || (skipCut && cutAt(text, b))) continue;
    const p = text.slice(a, e);
    if (isPath(p, a > 0 ? text.charCodeAt(a - 1) : -1)) yield { start: a, end: e, text: p };
  }
  // Bare names: a word of letters, digits, `_` and `-`, a dot, a known extension, a word boundary.
  let from = 0;
  for (let i = text.indexOf('.'); i >= 0; i = text.indexOf('.', Math.max(i + 1, from))) {
    let x = i + 1;
    while (x < text.length && isWordChar(text.charCodeAt(x))) x++;
    from = x;
    if (x === i + 1 || !EXTENSIONS.has(text.slice(i + 1, x).toLowerCase()) || !/^[a-z]+$/.test(text.slice(i + 1, x))) continue;
    let a = i;
    while (a > 0 && (isWordChar(text.charCodeAt(a - 1)) || text.charCodeAt(a - 1) === 45)) a--;
    if (a > 0 && text.charCodeAt(a - 1) === 92 && 'ntr'.includes(text[a]!)) a++; // after an escape's letter
    while (a < i && text.charCodeAt(a) === 45) a++; // a name starts at a word character
    const before = a > 0 ? text.charCodeAt(a - 1) : -1;
    if (a === i || before === 47 || before === 46 || x - a > FACT_MAX) continue; // not a path's last part, not `.x.py`
    if (/^(?:self|this|cls)$/.test(text.slice(a, i))) continue; // an attribute of the object a method runs on
    yield { start: a, end: x, text: text.slice(a, x) };
  }
}

/** Error and exception names in `text`: a capitalised word ending in `Error` or `Exception` (not the bare word). */
export function* errorSpans(text: string): Generator<Span> {
  for (const word of ['Error', 'Exception']) {
    for (let i = text.indexOf(word); i >= 0; i = text.indexOf(word, i + word.length)) {
      const e = i + word.length;
      if (e < text.length && isWordChar(text.charCodeAt(e))) continue;
      let a = i;
      while (a > 0 && a > i - FACT_MAX && isWordChar(text.charCodeAt(a - 1))) a--;
      // `\nKeyError` in escaped text: the escape's letter is not the name's.
      if (a > 0 && text.charCodeAt(a - 1) === 92 && 'ntr'.includes(text[a]!)) a++;
      const c = text.charCodeAt(a);
      if (i > a && c >= 65 && c <= 90 && !text.slice(a, e).includes('_')) yield { start: a, end: e, text: text.slice(a, e) };
    }
  }
}

/** Whether `text` has a `.` followed by a lower-case ASCII letter (where a bare file name's extension would start). */
function hasDotLetter(text: string): boolean {
  for (let i = text.indexOf('.'); i >= 0; i = text.indexOf('.', i + 1)) {
    const c = text.charCodeAt(i + 1);
    if (c >= 97 && c <= 122) return true;
  }
  return false;
}

/**
 * False when `line` surely holds no URL or file path ({@link hasUrlOrPath}): it has no `/` (no
 * URL, no path with a folder) and no `.` followed by a lower-case letter (no bare file name).
 */
export function mayHoldUrlOrPath(line: string): boolean {
  return line.indexOf('/') >= 0 || hasDotLetter(line);
}

/** Whether `line` holds a URL or a file path. */
export function hasUrlOrPath(line: string): boolean {
  if (!mayHoldUrlOrPath(line)) return false;
  if (nextUrl(line, 0, false) >= 0) return true; // the first of urlSpans(line), without the generator
  return scanPaths(line, false, stop); // pathSpans(line) has a first span
}

const stop = (): boolean => true;

// Callback scanners for the evidence index, which wants only the texts: the same spans as
// `urlSpans`, `pathSpans` and `errorSpans`, in the same order, without a span object per find,
// with char-code tests where those use small strings or regular expressions, and (`wanted`)
// without testing a candidate that is not one of the facts looked for.

/** The longest extension in {@link EXTENSIONS}. */
const EXT_MAX = Math.max(...[...EXTENSIONS].map((x) => x.length));

/** Flags by `first letter (a = 0) * (EXT_MAX + 1) + length` of the {@link EXTENSIONS}, tested before one is cut out. */
const EXT_SHAPES = new Uint8Array(26 * (EXT_MAX + 1));
for (const x of EXTENSIONS) EXT_SHAPES[(x.charCodeAt(0) - 97) * (EXT_MAX + 1) + x.length] = 1;

/** The texts of {@link urlSpans}`(text, skipCut)`, in order, passed to `fn`. */
export function eachUrl(text: string, skipCut: boolean, fn: (url: string) => void, wanted?: ReadonlySet<string>): void {
  for (let i = nextUrl(text, 0, skipCut); i >= 0; i = nextUrl(text, i + 3, skipCut)) {
    const u = text.slice(foundStart, foundEnd);
    if (wanted === undefined || wanted.has(u)) fn(u);
  }
}

/** `n`, `t` or `r`: the letter of a `\n`, `\t` or `\r` escape. */
const isEscapeLetter = (c: number): boolean => c === 110 || c === 116 || c === 114;

/** Whether part `[s, e)` of `p` is one that `isPath` counts: not empty, `~`, `.` or `..`. */
function countedPart(p: string, s: number, e: number): boolean {
  const n = e - s;
  if (n === 0) return false;
  const c = p.charCodeAt(s);
  if (n === 1) return c !== 126 && c !== 46;
  return !(n === 2 && c === 46 && p.charCodeAt(s + 1) === 46);
}

/** Whether the last part `[s, e)` of a rooted path is a file name: `[\w@+-][\w.@+-]*\.[A-Za-z0-9]{1,8}`. */
function rootedFileName(p: string, s: number, e: number): boolean {
  const c0 = p.charCodeAt(s);
  if (!(isWordChar(c0) || c0 === 64 || c0 === 43 || c0 === 45)) return false;
  let dot = -1;
  for (let k = e - 1; k > s; k--) {
    const c = p.charCodeAt(k);
    if (c === 46) {
      dot = k;
      break;
    }
    if (!((c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57))) return false;
  }
  if (dot < 0 || e - dot - 1 < 1 || e - dot - 1 > 8) return false;
  for (let k = s + 1; k < dot; k++) if (p.charCodeAt(k) === 126) return false;
  return true;
}

/**
 * {@link isPath} for the run of path characters `text[a, e)` (not empty), read in place: the
 * same answer, given that the character before the run is neither `<` nor `:` (which the
 * caller rules out first).
 */
function isPathAt(text: string, a: number, e: number): boolean {
  // The parts between slashes; an empty one after a slash and before another is a `//`.
  let parts = 0;
  let ls = 0;
  let le = 0;
  for (let s = a, k = a; k <= e; k++) {
    if (k < e && text.charCodeAt(k) !== 47) continue;
    if (k === s) {
      if (s > a && k < e) return false;
    } else if (countedPart(text, s, k)) {
      parts++;
      ls = s;
      le = k;
    }
    s = k + 1;
  }
  if (parts === 0) return false;
  const c0 = text.charCodeAt(a);
  const c1 = a + 1 < e ? text.charCodeAt(a + 1) : -1;
  const rooted = c0 === 47 || ((c0 === 126 || c0 === 46) && c1 === 47) || (c0 === 46 && c1 === 46 && a + 2 < e && text.charCodeAt(a + 2) === 47);
  if (rooted) return parts >= 2 || rootedFileName(text, ls, le);
  if (parts < 2) return false;
  // The last `.` of the last part, looked for no further back than an extension reaches.
  let dot = le - 1;
  while (dot > ls && le - dot - 1 <= EXT_MAX && text.charCodeAt(dot) !== 46) dot--;
  if (dot <= ls || le - dot - 1 > EXT_MAX || text.charCodeAt(dot) !== 46) return false;
  return EXTENSIONS.has(text.slice(dot + 1, le).toLowerCase());
}

/** The texts of {@link pathSpans}`(text, skipCut)`, in order, passed to `fn`; with `wanted`, only those in it. */
export function eachPath(text: string, skipCut: boolean, fn: (path: string) => void, wanted?: ReadonlySet<string>): void {
  scanPaths(
    text,
    skipCut,
    (path) => {
      fn(path);
      return false;
    },
    wanted,
  );
}

/**
 * The spans of {@link pathSpans}`(text)` (no `skipCut`), in the same order, passed to `fn` as
 * `(text, start, end)` until it returns true.
 */
export function eachPathSpan(text: string, fn: (path: string, start: number, end: number) => boolean): void {
  scanPaths(text, false, fn);
}

/**
 * The spans of {@link urlSpans}`(text)` (no `skipCut`), in order, passed to `fn` as
 * `(start, end)` until it returns true.
 */
export function eachUrlSpan(text: string, fn: (start: number, end: number) => boolean): void {
  for (let i = nextUrl(text, 0, false); i >= 0; i = nextUrl(text, i + 3, false)) if (fn(foundStart, foundEnd)) return;
}

/** Flags by char code of the path characters ({@link isPathChar}), all ASCII. */
const PATH_CODES = new Uint8Array(128);
for (let c = 0; c < 128; c++) PATH_CODES[c] = isPathChar(c) ? 1 : 0;

/** Flags by char code of the first letters of the {@link EXTENSIONS}. */
const EXT_FIRST = new Uint8Array(128);
for (const x of EXTENSIONS) EXT_FIRST[x.charCodeAt(0)] = 1;

/**
 * The scan of {@link eachPath}, stopped at the first path for which `fn` returns true. It reads
 * no character past either end of `text`: a read there (`NaN`) would make the compiled scan
 * treat every character code as a float, which costs it a good part of its speed.
 * @returns true when it was so stopped.
 */
function scanPaths(
  text: string,
  skipCut: boolean,
  fn: (path: string, start: number, end: number) => boolean | undefined,
  wanted?: ReadonlySet<string>,
): boolean {
  const n = text.length;
  let end = 0;
  for (let i = text.indexOf('/'); i >= 0; i = text.indexOf('/', Math.max(i + 1, end))) {
    let a = i;
    for (; a > end; a--) {
      const c = text.charCodeAt(a - 1);
      if (c >= 128 || PATH_CODES[c] !== 1) break;
    }
    if (a > 0 && text.charCodeAt(a - 1) === 92 && isEscapeLetter(text.charCodeAt(a))) a++;
    let b = i + 1;
    for (; b < n; b++) {
      const c = text.charCodeAt(b);
      if (c >= 128 || PATH_CODES[c] !== 1) break;
    }
    end = b;
    let e = b;
    for (; e > a; e--) {
      const c = text.charCodeAt(e - 1);
      if (c !== 46 && c !== 45 && c !== 47) break; // '.', '-', '/'
    }
    if (e - a > FACT_MAX || (skipCut && b < n && cutAt(text, b))) continue;
    // No path: an empty run (`/` or `./` alone), or one after `<` (`</td>`) or `:` (a URL's, `C:/x`).
    const before = a > 0 ? text.charCodeAt(a - 1) : -1;
    if (e === a || before === 60 || before === 58) continue;
    // Cut out only to be looked up or passed on.
    let p: string | undefined;
    if (wanted !== undefined) {
      p = text.slice(a, e);
      if (!wanted.has(p)) continue;
    }
    if (isPathAt(text, a, e) && fn(p ?? text.slice(a, e), a, e)) return true;
  }
  // A word run holds no `.`, so the search for the next one may resume right after this one.
  for (let i = text.indexOf('.'); i >= 0 && i + 1 < n; i = text.indexOf('.', i + 1)) {
    // The extension: lower-case ASCII letters, the first of them one an extension starts with,
    // up to a character that is no word character.
    const c1 = text.charCodeAt(i + 1);
    if (c1 >= 128 || EXT_FIRST[c1] !== 1) continue;
    let x = i + 2;
    for (; x < n && x - i <= EXT_MAX; x++) {
      const c = text.charCodeAt(x);
      if (!(c >= 97 && c <= 122)) break;
    }
    if (x < n && isWordChar(text.charCodeAt(x))) continue;
    if (EXT_SHAPES[(text.charCodeAt(i + 1) - 97) * (EXT_MAX + 1) + x - i - 1] !== 1 || !EXTENSIONS.has(text.slice(i + 1, x))) continue;
    let a = i;
    while (a > 0 && (isWordChar(text.charCodeAt(a - 1)) || text.charCodeAt(a - 1) === 45)) a--;
    // (`\tname.ipynb` in a printed string: the escape's letter is not the name's)
    if (a > 0 && text.charCodeAt(a - 1) === 92 && isEscapeLetter(text.charCodeAt(a))) a++;
    while (a < i && text.charCodeAt(a) === 45) a++;
    const before = a > 0 ? text.charCodeAt(a - 1) : -1;
    if (a === i || before === 47 || before === 46 || x - a > FACT_MAX || isObjectName(text, a, i)) continue;
    const p = text.slice(a, x);
    if ((wanted === undefined || wanted.has(p)) && fn(p, a, x)) return true;
  }
  return false;
}

/**
 * Whether `text[a, e)` is a name that code gives the object a method runs on (`self`, `cls`,
 * `this`): `self.h`, `self.html` are attributes, not file names.
 */
function isObjectName(text: string, a: number, e: number): boolean {
  const n = e - a;
  return (n === 4 && (text.startsWith('self', a) || text.startsWith('this', a))) || (n === 3 && text.startsWith('cls', a));
}

/** The texts of {@link errorSpans}`(text)`, in order, passed to `fn`. */
export function eachError(text: string, fn: (name: string) => void): void {
  for (const word of ['Error', 'Exception']) {
    for (let i = text.indexOf(word); i >= 0; i = text.indexOf(word, i + word.length)) {
      const e = i + word.length;
      if (e < text.length && isWordChar(text.charCodeAt(e))) continue;
      let a = i;
      let underscore = false;
      while (a > 0 && a > i - FACT_MAX && isWordChar(text.charCodeAt(a - 1))) if (text.charCodeAt(--a) === 95) underscore = true;
      if (a > 0 && text.charCodeAt(a - 1) === 92 && isEscapeLetter(text.charCodeAt(a))) a++;
      const c = text.charCodeAt(a);
      if (i > a && c >= 65 && c <= 90 && !underscore) fn(text.slice(a, e));
    }
  }
}
