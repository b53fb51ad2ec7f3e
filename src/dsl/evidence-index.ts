/**
 * The evidence index of a fitted flat document (clean profile; docs/differences.md): when a
 * dialog is cut to fit a total budget, the files, URLs, error names and names defined in code
 * that the dialog mentions but the cut document no longer shows are listed once, in a short
 * section after the conversation, so a continuing model still knows what was touched and can
 * look it up in the notebook.
 *
 * ```text
 * ## Also in the dialog, cut above
 *
 * Paths: src/a.py, /data/x.csv
 * URLs: https://example.org/doc
 * Errors: KeyError
 * Defined in code: load_data, Parser
 * ```
 *
 * Facts are gathered once per dialog ({@link gatherFacts}); each fitted body is scanned for the
 * facts it still shows (linear in its length), and the rest fill the index within its token
 * budget, each class covered as evenly as the tokens allow; within a class the facts mentioned
 * most often come first (ties: the latest mention, as recent evidence matters most).
 */
import { fitsToks, lenToks } from '../tokens/index.js';

/** The classes of facts an index lists, in the order of its lines. */
export const INDEX_CLASSES = ['files', 'urls', 'errors', 'names'] as const;
export type IndexClass = (typeof INDEX_CLASSES)[number];

const LABEL: Record<IndexClass, string> = { files: 'Paths', urls: 'URLs', errors: 'Errors', names: 'Defined in code' };

/**
 * The index budget of a flat document made with the base policy (no total budget): one token
 * per this many UTF-16 units of the body, about 1.3% of its tokens for English text.
 */
export const INDEX_UNITS_PER_TOKEN = 300;

/** The heading of the index section. */
export const INDEX_HEADING = '## Also in the dialog, cut above';

const EXT =
  'py|ipynb|js|mjs|ts|tsx|jsx|json|md|txt|csv|tsv|ya?ml|toml|cfg|ini|sh|html?|css|c|h|cc|cpp|hpp|rs|go|java|rb|php|sql|xml|lock|log|pdf|png|jpe?g|gif|svg|parquet|pkl|nc|zip|gz|tar';
const URL_RE = /[A-Za-z0-9]+:\/\/[^\s'"<>`)\]\\…]+/y;
/** A bare file name with a known extension (no folder). */
const FILE_RE = new RegExp(`\\b[\\w-]+\\.(?:${EXT})\\b`, 'g');

const isWordChar = (c: number): boolean => (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95;

/**
 * The URLs in `text` (`scheme://…` up to white space, a quote, `<`, `>`, a backtick, `)`, `]`, a
 * backslash or `…`); with `skipCut`, not those a cut mark or `<TRUNCATED>` ends.
 */
function* urlsIn(text: string, skipCut = true): Generator<string> {
  for (let i = text.indexOf('://'); i >= 0; i = text.indexOf('://', i + 3)) {
    let a = i;
    while (a > 0 && isWordChar(text.charCodeAt(a - 1))) a--;
    const scheme = text.slice(a, i).toLowerCase();
    if (scheme !== 'http' && scheme !== 'https' && scheme !== 'ftp' && scheme !== 's3' && scheme !== 'gs') continue;
    URL_RE.lastIndex = a;
    const m = URL_RE.exec(text);
    if (m && m.index === a) {
      if (!skipCut || !cutAt(text, a + m[0].length)) yield trimUrl(m[0]);
      i = a + m[0].length - 3;
    }
  }
}

/** Error and exception names in `text`: a capitalised word ending in `Error` or `Exception` (not the bare word). */
function* errorsIn(text: string): Generator<string> {
  for (const word of ['Error', 'Exception']) {
    for (let i = text.indexOf(word); i >= 0; i = text.indexOf(word, i + word.length)) {
      const e = i + word.length;
      if (e < text.length && isWordChar(text.charCodeAt(e))) continue;
      let a = i;
      while (a > 0 && isWordChar(text.charCodeAt(a - 1))) a--;
      const c = text.charCodeAt(a);
      if (i > a && c >= 65 && c <= 90 && !text.slice(a, e).includes('_')) yield text.slice(a, e);
    }
  }
}

/** Characters of a path: letters, digits, `_`, `.`, `@`, `+`, `-`, `~` and `/`. */
function isPathChar(c: number): boolean {
  return (
    (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95 || c === 46 || c === 64 || c === 43 || c === 45 || c === 126 || c === 47
  );
}

const KNOWN_EXT = new RegExp(`\\.(?:${EXT})$`);

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
  return parts.length >= 2 && KNOWN_EXT.test(last);
}

/**
 * The file paths in `text`, in order: folder paths by a scan around each `/`, bare names by
 * {@link FILE_RE}; with `skipCut`, not a folder path that a cut mark or `<TRUNCATED>` ends.
 */
function* pathsIn(text: string, skipCut = true): Generator<string> {
  let end = 0;
  for (let i = text.indexOf('/'); i >= 0; i = text.indexOf('/', Math.max(i + 1, end))) {
    let a = i;
    while (a > end && isPathChar(text.charCodeAt(a - 1))) a--;
    // `\n/usr/lib` in escaped text (JSON, a repr): the letter of the escape is not the path's.
    if (a > 0 && text.charCodeAt(a - 1) === 92 && 'ntr'.includes(text[a]!)) a++;
    let b = i + 1;
    while (b < text.length && isPathChar(text.charCodeAt(b))) b++;
    end = b;
    let e = b;
    while (e > a && '.-/'.includes(text[e - 1]!)) e--;
    const p = text.slice(a, e);
    if (p.length <= FACT_MAX && !(skipCut && cutAt(text, b)) && isPath(p, a > 0 ? text.charCodeAt(a - 1) : -1)) yield p;
  }
  for (const m of text.matchAll(FILE_RE)) {
    const before = m.index > 0 ? text.charCodeAt(m.index - 1) : -1;
    if (before !== 47 && before !== 46) yield m[0]; // not the last part of a path, not `.x.py`
  }
}

/** `def NAME`, `class NAME`, or a top-level `NAME =` at the start of a line of code. */
const DEF_RE = /^(?:async\s+)?(?:def|class)\s+([A-Za-z_]\w*)|^([A-Za-z_]\w*)\s*(?::[^=\n]*)?=(?!=)/gm;

/** The longest fact listed (UTF-16 units): longer ones are noise (data, not a reference). */
const FACT_MAX = 200;

/** A text of the dialog to gather facts from; `code` marks source code (names are defined there). */
export interface FactSource {
  text: string;
  code?: boolean;
}

/** How often a fact was mentioned, and the ordinal of its latest mention. */
export interface Mentions {
  count: number;
  last: number;
}

/** Facts of a dialog by class, each with its {@link Mentions}. */
export type Facts = Record<IndexClass, Map<string, Mentions>>;

let mention = 0;

function count(m: Map<string, Mentions>, v: string): void {
  if (v.length > FACT_MAX) return;
  const had = m.get(v);
  if (had) {
    had.count++;
    had.last = mention++;
  } else m.set(v, { count: 1, last: mention++ });
}

function trimUrl(u: string): string {
  let e = u.length;
  for (;;) {
    while (e > 0 && '.,;:!?'.includes(u[e - 1]!)) e--;
    // an HTML character reference glued to the end (`…html&#x27`, `&quot`)
    const m = /&(?:#x?[0-9a-fA-F]{1,6}|[a-z]{2,6});?$/.exec(u.slice(0, e));
    if (m === null) return u.slice(0, e);
    e = m.index;
  }
}

/** Whether the text at `e` goes on with a cut mark: the fact before it was cut, not whole. */
function cutAt(text: string, e: number): boolean {
  return text.charCodeAt(e) === 0x2026 || (text.charCodeAt(e) === 32 && text.charCodeAt(e + 1) === 0x2026) || text.startsWith('<TRUNCATED>', e);
}

/**
 * The files, URLs, error names and names defined in code that `sources` mention. Linear in
 * their length.
 */
export function gatherFacts(sources: Iterable<FactSource>): Facts {
  const f: Facts = { files: new Map(), urls: new Map(), errors: new Map(), names: new Map() };
  mention = 0;
  for (const { text, code } of sources) {
    if (text === '') continue;
    for (const u of urlsIn(text)) count(f.urls, u);
    for (const p of pathsIn(text)) count(f.files, p);
    for (const x of errorsIn(text)) count(f.errors, x);
    // Names of one or two characters (`i`, `df`, `e1`) are scratch, not what a reader looks up.
    if (code) for (const m of text.matchAll(DEF_RE)) if ((m[1] ?? m[2])!.length >= 3) count(f.names, (m[1] ?? m[2])!);
  }
  // A path that is the tail of a URL is the URL's, not a file of its own.
  for (const u of f.urls.keys()) f.files.delete(u.replace(/^[a-z0-9]+:/, ''));
  return f;
}

/** Facts in the order an index lists them: most mentioned first, ties by the latest mention. */
function ranked(m: Map<string, Mentions>): string[] {
  return [...m.keys()].sort((a, b) => m.get(b)!.count - m.get(a)!.count || m.get(b)!.last - m.get(a)!.last);
}

/** What a rendered text shows of the facts: every URL, path, error name and word in it. */
function shownIn(body: string): Set<string> {
  const s = new Set<string>();
  for (const u of urlsIn(body, false)) s.add(u);
  for (const p of pathsIn(body, false)) s.add(p);
  for (const m of body.matchAll(/[A-Za-z_]\w*/g)) s.add(m[0]);
  return s;
}

/** Facts prepared for indexing: ranked once per dialog. */
export interface PreparedFacts {
  ranked: Record<IndexClass, string[]>;
  /** Whether there is any fact at all. */
  any: boolean;
}

/** Rank gathered facts once, for many {@link evidenceIndex} calls. */
export function prepareFacts(f: Facts): PreparedFacts {
  const r = Object.fromEntries(INDEX_CLASSES.map((c) => [c, ranked(f[c])])) as Record<IndexClass, string[]>;
  return { ranked: r, any: INDEX_CLASSES.some((c) => r[c].length > 0) };
}

function render(lists: Record<IndexClass, string[]>): string {
  const lines = INDEX_CLASSES.filter((c) => lists[c].length > 0).map((c) => `${LABEL[c]}: ${lists[c].join(', ')}`);
  return lines.length ? `${INDEX_HEADING}\n\n${lines.join('\n')}` : '';
}

/**
 * The index section for a rendered `body`: the facts it does not show, within `maxToks`
 * tokens (the section's own tokens, heading included; `''` when nothing is missing or nothing
 * fits). The next fact listed is always the one that adds the largest share of its class (one
 * over the class's facts in the dialog) per token, so small classes and cheap facts are not
 * crowded out by long URLs; within a class the order is kept. A fact that does not fit is skipped.
 */
export function evidenceIndex(facts: PreparedFacts, body: string, maxToks: number): string {
  if (!facts.any || maxToks <= 0) return '';
  const shown = shownIn(body);
  const missing = INDEX_CLASSES.map((c) => facts.ranked[c].filter((x) => !shown.has(x)));
  const lists = Object.fromEntries(INDEX_CLASSES.map((c) => [c, [] as string[]])) as Record<IndexClass, string[]>;
  const head = lenToks(`${INDEX_HEADING}\n\n`);
  let used = head;
  const pos = INDEX_CLASSES.map(() => 0);
  const costs = INDEX_CLASSES.map(() => 0);
  const taken: IndexClass[] = [];
  // An item costs itself and its separator (or its line's label the first time).
  const costOf = (k: number): number => {
    const c = INDEX_CLASSES[k]!;
    return lenToks(missing[k]![pos[k]!]!) + (lists[c].length === 0 ? lenToks(`${LABEL[c]}: `) + 1 : 1);
  };
  INDEX_CLASSES.forEach((_, k) => {
    if (missing[k]!.length) costs[k] = costOf(k);
  });
  for (;;) {
    // The next item is the one that adds the largest share of its class per token.
    let best = -1;
    let bestGain = 0;
    INDEX_CLASSES.forEach((c, k) => {
      if (pos[k]! >= missing[k]!.length) return;
      const gain = 1 / facts.ranked[c].length / costs[k]!;
      if (gain > bestGain) {
        best = k;
        bestGain = gain;
      }
    });
    if (best < 0) break;
    const c = INDEX_CLASSES[best]!;
    const x = missing[best]![pos[best]!]!;
    if (used + costs[best]! <= maxToks) {
      used += costs[best]!;
      lists[c].push(x);
      taken.push(c);
    }
    pos[best]!++;
    if (pos[best]! < missing[best]!.length) costs[best] = costOf(best);
  }
  if (used === head) return '';
  // Joints re-tokenise a little differently from the estimate: drop the last-taken facts until it fits.
  for (;;) {
    const text = render(lists);
    if (text === '' || fitsToks(text, maxToks)) return text;
    lists[taken.pop()!].pop();
  }
}
