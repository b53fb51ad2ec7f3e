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
import { eachError, eachPath, eachUrl, FACT_MAX } from './evidence-scan.js';

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

/**
 * The start of each line of `code` (after `\n`, `\r`, U+2028 or U+2029, as `^` of a multiline
 * regular expression) whose first character may start a definition, passed to `fn` in order.
 */
function eachLineStart(code: string, fn: (at: number) => void): void {
  const rare = code.indexOf('\r') >= 0 || code.indexOf('\u2028') >= 0 || code.indexOf('\u2029') >= 0;
  for (let at = 0; at < code.length; ) {
    const c = code.charCodeAt(at);
    if ((c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95) fn(at);
    // The next line: past the next terminator (the common `\n` found by a search).
    let k = code.indexOf('\n', at);
    if (k < 0) k = code.length;
    for (let j = at; rare && j < k; j++) {
      const t = code.charCodeAt(j);
      if (t === 13 || t === 0x2028 || t === 0x2029) {
        k = j;
        break;
      }
    }
    at = k + 1;
  }
}

/**
 * `def NAME`, `class NAME`, or a top-level `NAME =` (not `==`), tried at the start of a line of
 * code (sticky: it is the multiline `^…` search, run only where a line starts).
 */
const DEF_AT = /(?:async\s+)?(?:def|class)\s+([A-Za-z_]\w*)|([A-Za-z_]\w*)\s*(?::[^=\n]*)?=(?!=)/y;

/**
 * The names {@link DEF_AT} defines in `code`, in order, passed to `fn`: tried where a line starts
 * with a letter or `_`; as in a global search, the next is looked for after a match (whose
 * white space may run over line ends).
 */
function eachDef(code: string, fn: (name: string) => void): void {
  let after = 0;
  eachLineStart(code, (at) => {
    if (at < after) return;
    DEF_AT.lastIndex = at;
    const m = DEF_AT.exec(code);
    if (m === null) return;
    after = DEF_AT.lastIndex;
    fn((m[1] ?? m[2])!);
  });
}

/**
 * The files, URLs, error names and names defined in code that `sources` mention. Linear in
 * their length.
 */
export function gatherFacts(sources: Iterable<FactSource>): Facts {
  const f: Facts = { files: new Map(), urls: new Map(), errors: new Map(), names: new Map() };
  mention = 0;
  const url = (u: string): void => count(f.urls, u);
  const file = (p: string): void => count(f.files, p);
  const error = (x: string): void => count(f.errors, x);
  // Names of one or two characters (`i`, `df`, `e1`) are scratch, not what a reader looks up.
  const name = (x: string): void => {
    if (x.length >= 3) count(f.names, x);
  };
  for (const { text, code } of sources) {
    if (text === '') continue;
    eachUrl(text, true, url);
    eachPath(text, true, file);
    eachError(text, error);
    if (code) eachDef(text, name);
  }
  // A path that is the tail of a URL is the URL's, not a file of its own.
  for (const u of f.urls.keys()) f.files.delete(u.replace(/^[a-z0-9]+:/, ''));
  return f;
}

/** Facts in the order an index lists them: most mentioned first, ties by the latest mention. */
function ranked(m: Map<string, Mentions>): string[] {
  return [...m].sort(([, a], [, b]) => b.count - a.count || b.last - a.last).map(([x]) => x);
}

const isWordChar = (c: number): boolean => (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57) || c === 95;
const isDigit = (c: number): boolean => c >= 48 && c <= 57;

/**
 * Up to this many facts that are words, a body is searched for each of them (a native search
 * of the body per word, {@link showsWord}) rather than walked word by word: the walk costs
 * about as much as this many searches.
 */
const WORD_SEARCHES = 32;

/**
 * Whether `body` shows the word `w` (`[A-Za-z_]\w*`) as the walk of {@link shownIn} cuts words
 * out: an occurrence of `w` that no word character follows and that starts a word, a run of
 * word characters from the first ASCII letter or `_` after a non-word character (so after
 * digits only: `3KeyError` shows `KeyError`, `xKeyError` does not).
 */
function showsWord(body: string, w: string): boolean {
  for (let p = body.indexOf(w); p >= 0; p = body.indexOf(w, p + 1)) {
    const e = p + w.length;
    if (e < body.length && isWordChar(body.charCodeAt(e))) continue;
    let q = p;
    while (q > 0 && isDigit(body.charCodeAt(q - 1))) q--;
    if (q === 0 || !isWordChar(body.charCodeAt(q - 1))) return true;
  }
  return false;
}

/** The number of buckets of {@link wordBucket}. */
const WORD_BUCKETS = 1 << 14;

/** A bucket for a word by its first and last char codes and its length: a word cut out of a body is looked up only when its bucket holds a fact not yet found. */
const wordBucket = (first: number, last: number, length: number): number => (first * 31 + last * 7 + length * 131) & (WORD_BUCKETS - 1);

/**
 * The facts that a rendered text shows: as a URL, a path, or a word (`[A-Za-z_]\w*`) of it. One
 * pass of each kind over `body`, each only when there are facts it can show (a URL has `://`,
 * which no path or word has; a path has `/` or `.`, which no word has). For words, with few of
 * them a search of `body` for each; else a walk over the words of `body`, in which a word is cut
 * out and looked up only when its {@link wordBucket} holds a fact not yet found, and which ends
 * when all are found.
 */
function shownIn(body: string, facts: PreparedFacts): Set<string> {
  const { all, wordFacts, ranked } = facts;
  const s = new Set<string>();
  const add = (x: string): void => {
    s.add(x);
  };
  if (ranked.urls.length > 0) eachUrl(body, false, add, all);
  if (ranked.files.length > 0) eachPath(body, false, add, all);
  if (wordFacts.length <= WORD_SEARCHES) {
    for (const w of wordFacts) if (showsWord(body, w)) s.add(w);
    return s;
  }
  const pending = new Int32Array(WORD_BUCKETS);
  for (const w of wordFacts) pending[wordBucket(w.charCodeAt(0), w.charCodeAt(w.length - 1), w.length)]++;
  let left = wordFacts.length;
  const n = body.length;
  for (let i = 0; i < n; ) {
    const c = body.charCodeAt(i);
    if (!((c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95)) {
      i++;
      continue;
    }
    let e = i + 1;
    while (e < n && isWordChar(body.charCodeAt(e))) e++;
    const k = wordBucket(c, body.charCodeAt(e - 1), e - i);
    if (pending[k] !== 0 && e - i <= FACT_MAX) {
      const w = body.slice(i, e);
      // (Only words are looked up, so only a word fact is found here.)
      if (all.has(w) && !s.has(w)) {
        s.add(w);
        pending[k]--;
        if (--left === 0) break;
      }
    }
    i = e;
  }
  return s;
}

/** Facts prepared for indexing: ranked once per dialog. */
export interface PreparedFacts {
  ranked: Record<IndexClass, string[]>;
  /** Whether there is any fact at all. */
  any: boolean;
  /** Every fact, of all classes. */
  all: Set<string>;
  /** The facts that are words (`[A-Za-z_]\w*`: the errors and names), once each. */
  wordFacts: string[];
}

/** Rank gathered facts once, for many {@link evidenceIndex} calls. */
export function prepareFacts(f: Facts): PreparedFacts {
  const r = Object.fromEntries(INDEX_CLASSES.map((c) => [c, ranked(f[c])])) as Record<IndexClass, string[]>;
  const all = new Set<string>();
  const wordFacts: string[] = [];
  for (const c of INDEX_CLASSES) {
    for (const x of r[c]) {
      if (all.has(x)) continue; // (a name that is also an error)
      all.add(x);
      if (/^[A-Za-z_]\w*$/.test(x)) wordFacts.push(x);
    }
  }
  return { ranked: r, any: all.size > 0, all, wordFacts };
}

/** The least an item of the index costs: a token of its own (no fact is empty) and one of its separator. */
const MIN_COST = 2;

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
  const head = lenToks(`${INDEX_HEADING}\n\n`);
  if (maxToks - head < MIN_COST) return ''; // no fact fits
  const shown = shownIn(body, facts);
  const missing = INDEX_CLASSES.map((c) => facts.ranked[c].filter((x) => !shown.has(x)));
  const lists = Object.fromEntries(INDEX_CLASSES.map((c) => [c, [] as string[]])) as Record<IndexClass, string[]>;
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
    if (maxToks - used < MIN_COST) break; // no further fact fits: none is counted
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
