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
import { errorSpans, FACT_MAX, pathSpans, urlSpans } from './evidence-scan.js';

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

/** `def NAME`, `class NAME`, or a top-level `NAME =` at the start of a line of code. */
const DEF_RE = /^(?:async\s+)?(?:def|class)\s+([A-Za-z_]\w*)|^([A-Za-z_]\w*)\s*(?::[^=\n]*)?=(?!=)/gm;

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
 * The files, URLs, error names and names defined in code that `sources` mention. Linear in
 * their length.
 */
export function gatherFacts(sources: Iterable<FactSource>): Facts {
  const f: Facts = { files: new Map(), urls: new Map(), errors: new Map(), names: new Map() };
  mention = 0;
  for (const { text, code } of sources) {
    if (text === '') continue;
    for (const u of urlSpans(text, true)) count(f.urls, u.text);
    for (const p of pathSpans(text, true)) count(f.files, p.text);
    for (const x of errorSpans(text)) count(f.errors, x.text);
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
  for (const u of urlSpans(body)) s.add(u.text);
  for (const p of pathSpans(body)) s.add(p.text);
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
