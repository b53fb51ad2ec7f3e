/**
 * Code fences that survive a cut, for the clean profile. A middle cut can remove a fence's
 * closing line (so everything after the cut, later turns included, renders as code) or its
 * opening line (so the closing line opens a new block); a `»` mark written after a closing
 * fence (`\`\`\` »`) keeps the fence open too. The functions here mend the text at a cut so
 * that no fence is left open or orphaned. Linear in the text's length.
 *
 * Fences are read with the block structure of CommonMark 0.31 (sections 4.5 "Fenced code
 * blocks", 5.1 "Block quotes", 5.2 "List items", 5.3 "Lists"), as remark-parse (micromark)
 * reads it: a fence opened inside a block quote or a list item belongs to that container, is
 * closed only by a closing line that stays in it (the quote's `>`, the item's content
 * indentation), and ends when the container ends (a line without the `>`, a line indented less
 * than the item's content). So a closing line written for a fence carries the prefix of its
 * containers ({@link OpenFence.prefix}). The leaf blocks that decide how a line is read are
 * modelled too (paragraphs and their lazy continuation lines, ATX and setext headings,
 * thematic breaks, indented code, HTML blocks of the seven kinds of section 4.6, in which a
 * fence line is HTML). Where micromark departs from the spec's reference parser the scanner
 * follows micromark, the parser whose output the clean profile is checked with: an item
 * marker that interrupts a paragraph (or indented code) cannot be `2.` or start blank, and
 * neither can a second marker on the same line (`- 2. x` after a paragraph is an item holding the text `2. x`); a tag alone
 * on a lazy line starts an HTML block in the containers the line left; `]]]>` ends no CDATA
 * section. Lines end at `\n`, `\r\n` or a lone `\r` (the scans read a lone `\r` as `\n`,
 * {@link asLines}), and a byte order mark before a document's first line is skipped, as
 * micromark does. Linear in the text: each line is read once, a line of many markers and a
 * blank line in a deep nesting included.
 */
import { lowerBound } from '../chat/fences.js';
import { lineCutParts, placeableFrom } from './code-cut.js';

/** The mark of a middle cut. */
const CUT_MARK = ' … ';

/**
 * A fence that is open: its character (code unit of `` ` `` or `~`), its length (characters),
 * the opening line from the fence characters on, the opening line's indentation inside its
 * container (columns, 0 to 3), and the prefix a line needs to stay in the fence's containers
 * (`'> '` per block quote, spaces up to the content column per list item, outermost first;
 * `''` at top level).
 */
export interface OpenFence {
  ch: number;
  len: number;
  line: string;
  indent: number;
  prefix: string;
}

/**
 * Where a text stands before its first line: `'fresh'` at the start of a document;
 * `'para'` after a paragraph's line (a `»` mark on the line before); `'inline'` on a
 * paragraph's line (after `» `), so the first line is text of that paragraph whatever it holds.
 */
export type FenceStart = 'fresh' | 'para' | 'inline';

const BACKTICK = 0x60;
const TILDE = 0x7e;
const SPACE = 32;
const TAB = 9;
const GT = 0x3e;
const LT = 0x3c;
const BOM = 0xfeff;

/**
 * `s` with each lone `\r` (one not followed by `\n`) read as a line break, `\n`: CommonMark ends
 * a line at `\n`, `\r\n` or a lone `\r`, while the scans here split lines at `\n` (a `\r` before
 * it excluded). The text keeps its length and offsets, so a cut found in it is a cut of `s`;
 * `s` itself when it holds no lone `\r`. The last text asked about is remembered.
 */
function asLines(s: string): string {
  if (!s.includes('\r')) return s;
  if (s === crIn) return crOut;
  const out = s.replace(LONE_CR, '\n');
  crIn = s;
  crOut = out;
  return out;
}

const LONE_CR = /\r(?!\n)/g;
let crIn = '';
let crOut = '';

/** The start of the first line of `s` read as a document's: after a byte order mark (which micromark skips), else 0. */
function docStartOf(s: string): number {
  return s.charCodeAt(0) === BOM ? 1 : 0;
}

/** End of the line that starts at `i` (index of its `\n`, or `to`), a `\r` before it excluded. */
function lineEnd(s: string, i: number, to: number): number {
  let j = s.indexOf('\n', i);
  if (j < 0 || j > to) j = to;
  return j > i && s.charCodeAt(j - 1) === 13 ? j - 1 : j;
}

/** Index of the first character of `s[i, end)` that is not a space or tab. */
function skipBlank(s: string, i: number, end: number): number {
  while (i < end && (s.charCodeAt(i) === SPACE || s.charCodeAt(i) === TAB)) i++;
  return i;
}

/**
 * Skip the spaces and tabs of `s[i, end)` from column `col` on (a tab moves to the next
 * multiple of 4): returns the index of the first other character (or `end`) and leaves its
 * column in {@link skipped}.
 */
function skipColumns(s: string, i: number, end: number, col: number): number {
  for (; i < end; i++) {
    const c = s.charCodeAt(i);
    if (c === SPACE) col++;
    else if (c === TAB) col += 4 - (col % 4);
    else break;
  }
  skipped = col;
  return i;
}

/** The column {@link skipColumns} stopped at. */
let skipped = 0;

// ---------------------------------------------------------------------------------------------
// The block scanner.

const NONE = 0;
const PARA = 1;
const FENCE = 2;
const CODE = 3; // indented code
const HTML = 4; // an HTML block

/**
 * An open container: a block quote, or a list item with its list's marker (`-`, `+`, `*`, or
 * `.`/`)` after an ordered item's number) and its content column relative to its parent's
 * content (`size`, columns). `initialBlank`: the item started with a blank line and holds no
 * text yet; `furtherBlank`: such an item met a blank line, so the next line that is not blank
 * ends it (an item starts with at most one blank line). `id` tells containers apart (a sibling
 * item gets a new one).
 */
interface Box {
  quote: boolean;
  marker: number;
  ordered: boolean;
  size: number;
  initialBlank: boolean;
  furtherBlank: boolean;
  id: number;
}

/**
 * A line-by-line reader of a Markdown text's blocks, far enough to tell fenced code: the open
 * containers, the leaf block in progress (none, paragraph, fenced or indented code) and the open
 * fence. Feed it every line in order with {@link Blocks.line}. Positions are UTF-16 offsets,
 * indentation is counted in columns (tab stops of 4, a tab partly used by a container's prefix
 * leaves the rest of its columns).
 */
class Blocks {
  stack: Box[] = [];
  flow = NONE;
  fence: OpenFence | null = null;
  /** What the last line read was: 0 outside fenced code, 1 a fence's opening line, 2 a line of its code, 3 its closing line. */
  kind = 0;
  private ids = 0;
  // The cursor on the current line: offset, column, and whether the tab at the offset is
  // partly used (its columns before `col` belong to a prefix).
  private s = '';
  private i = 0;
  private end = 0;
  private col = 0;
  private partial = false;
  // Set by `peek`: the first character that is not a space or tab, its column, and the
  // columns from the cursor to it.
  private nn = -1;
  private nnCol = 0;
  private indent = 0;
  private blank = false;
  /** Indices in `stack` of its block quotes, in order (a blank line skips the items between). */
  private quotes: number[] = [];
  /** The open HTML block's kind (CommonMark's start conditions 1 to 7) while `flow` is HTML. */
  private html = 0;
  /** The tag name of an open HTML block of kind 1 (`pre`, `script`, `style`, `textarea`). */
  private htmlName = '';
  // The current line read as a thematic break from its end, once per line (`brkCh` -1 until
  // it is): a break from an offset on needs `brkCh` there, no other character from `brkFrom`
  // on and three `brkCh` from it on (it is at or before `brkThird`).
  private lineStart = 0;
  private brkCh = -1;
  private brkFrom = 0;
  private brkThird = -1;

  constructor(start: FenceStart = 'fresh') {
    if (start !== 'fresh') this.flow = PARA;
    this.inlineFirst = start === 'inline';
    this.docStart = start === 'fresh';
  }

  private inlineFirst: boolean;
  /** Read from the start of a document: a byte order mark before the first line is no text of it (micromark skips it). */
  private docStart: boolean;

  /** A copy of this reader's state (its containers copied, the open fence shared). */
  clone(): Blocks {
    const c = new Blocks('fresh');
    c.docStart = this.docStart;
    c.stack = this.stack.map((x) => ({ ...x }));
    c.flow = this.flow;
    c.fence = this.fence;
    c.html = this.html;
    c.htmlName = this.htmlName;
    c.quotes = this.quotes.slice();
    c.ids = this.ids;
    c.inlineFirst = this.inlineFirst;
    return c;
  }

  /**
   * Look past spaces and tabs from the cursor (sets `nn`, `nnCol`, `indent`, `blank`). The
   * cursor only moves forward, so while it has not passed `nn` the run is not read again.
   */
  private peek(): void {
    if (this.i > this.nn) {
      this.nn = skipColumns(this.s, this.i, this.end, this.col);
      this.nnCol = skipped;
    }
    this.indent = this.nnCol - this.col;
    this.blank = this.nn >= this.end;
  }

  /** Move the cursor to the character `peek` found. */
  private toNonspace(): void {
    this.i = this.nn;
    this.col = this.nnCol;
    this.partial = false;
  }

  /** Move the cursor over `n` columns of spaces and tabs (a tab may be used in part). */
  private advanceColumns(n: number): void {
    const s = this.s;
    while (n > 0 && this.i < this.end) {
      const ch = s.charCodeAt(this.i);
      if (ch === TAB) {
        const toStop = 4 - (this.col % 4);
        const used = Math.min(n, toStop);
        this.partial = toStop > n;
        this.col += used;
        if (!this.partial) this.i++;
        n -= used;
      } else if (ch === SPACE) {
        this.partial = false;
        this.i++;
        this.col++;
        n--;
      } else break;
    }
  }

  /** Is the character at the cursor a space or tab (or the rest of a tab partly used)? */
  private atSpace(): boolean {
    const ch = this.s.charCodeAt(this.i);
    return this.i < this.end && (ch === SPACE || ch === TAB);
  }

  /** Read the line `s[start, end)` (no line break in it). */
  line(s: string, start: number, end: number): void {
    if (start === 0 && this.docStart && s.charCodeAt(0) === BOM) start = 1;
    this.s = s;
    this.i = start;
    this.end = end;
    this.col = 0;
    this.partial = false;
    this.kind = 0;
    this.nn = -1;
    this.lineStart = start;
    this.brkCh = -1;
    if (this.inlineFirst) {
      // The first line follows text on its line: it is that paragraph's text.
      this.inlineFirst = false;
      return;
    }
    const stack = this.stack;
    // Most lines at top level outside code start with a character that starts no block: text.
    if (stack.length === 0 && this.flow !== FENCE && this.flow !== HTML && start < end && plain(s.charCodeAt(start))) {
      this.flow = PARA;
      return;
    }
    let matched = 0;
    let sibling = false;
    for (; matched < stack.length; matched++) {
      const box = stack[matched]!;
      if (box.quote) {
        this.peek();
        if (this.indent > 3 || this.blank || s.charCodeAt(this.nn) !== GT) break;
        this.toNonspace();
        this.i++;
        this.col++;
        if (this.atSpace()) this.advanceColumns(1);
        continue;
      }
      this.peek();
      if (this.blank) {
        // A blank line stays in every item up to the next block quote. Only the innermost box
        // can have started blank (a box opened inside it, or a line of text in it, ends that).
        const q = this.quoteFrom(matched);
        if (q === stack.length) {
          const last = stack[q - 1]!;
          last.furtherBlank = last.furtherBlank || last.initialBlank;
        }
        matched = q - 1;
        continue;
      }
      const further = box.furtherBlank;
      box.initialBlank = false;
      box.furtherBlank = false;
      if (!further && this.atSpace() && this.indent >= box.size) {
        this.advanceColumns(box.size);
        continue;
      }
      // Not in this item: a sibling item of the same list, or the item ends.
      if (this.indent <= 3 && this.listItem(box, false)) {
        box.id = ++this.ids;
        this.truncate(matched + 1);
        this.closeFlow();
        matched++;
        sibling = true;
      }
      break;
    }
    if (!sibling && matched === stack.length) {
      if (this.flow === FENCE) {
        this.fenceLine();
        return;
      }
      if (this.flow === HTML) {
        this.htmlLine();
        return;
      }
    }
    // New containers; markers that interrupt a paragraph (or indented code) are restricted.
    const interrupt = !sibling && matched === stack.length && this.flow !== NONE;
    let opened = sibling;
    for (;;) {
      this.peek();
      if (this.indent > 3 || this.blank) break;
      let box: Box | null = null;
      if (s.charCodeAt(this.nn) === GT) {
        this.toNonspace();
        this.i++;
        this.col++;
        if (this.atSpace()) this.advanceColumns(1);
        box = { quote: true, marker: GT, ordered: false, size: 0, initialBlank: false, furtherBlank: false, id: ++this.ids };
      } else if (!plain(s.charCodeAt(this.nn))) {
        const item: Box = { quote: false, marker: 0, ordered: false, size: 0, initialBlank: false, furtherBlank: false, id: 0 };
        if (this.listItem(item, interrupt)) {
          item.id = ++this.ids;
          box = item;
        }
      }
      if (box === null) break;
      if (!opened) {
        opened = true;
        this.closeFlow();
        this.truncate(matched);
      }
      if (box.quote) this.quotes.push(stack.length);
      stack.push(box);
      matched = stack.length;
    }
    if (!opened && matched < stack.length) {
      // A lazy line: it continues the paragraph of the containers it left when it is
      // paragraph continuation text, else those containers end before it.
      if (this.flow === PARA && !this.blank && (this.indent >= 4 || !this.interrupts())) {
        // (micromark starts an HTML block of kind 7 on such a line, in the containers it left)
        if (this.indent < 4 && s.charCodeAt(this.nn) === LT && htmlStart(s, this.nn, end, false) === 7) {
          this.flow = HTML;
          this.html = 7;
        }
        return;
      }
      this.closeFlow();
      this.truncate(matched);
      this.leafLine();
      // (micromark ends indented code that starts on such a line with that line)
      if (this.flow === CODE) this.flow = NONE;
      return;
    }
    this.leafLine();
  }

  /**
   * The closing line of the HTML block of kind 1 to 5 open at top level after the last line
   * read (`</pre>`, `-->`, `?>`, `>`, `]]>`), or `null`: such a block runs to its end marker,
   * through blank lines and whatever follows, so a cut that removed the marker hides the rest.
   * (A block inside a container ends with it.)
   */
  rawCloser(): string | null {
    if (this.flow !== HTML || this.html > 5 || this.stack.length > 0) return null;
    return this.html === 1 ? `</${this.htmlName}>` : (['', '', '-->', '?>', '>', ']]>'] as const)[this.html]!;
  }

  /** Keep the first `n` containers (the others have ended). */
  private truncate(n: number): void {
    this.stack.length = n;
    const q = this.quotes;
    while (q.length > 0 && q[q.length - 1]! >= n) q.pop();
  }

  /** The index of the first block quote in `stack` at or after `from`, or the stack's length. */
  private quoteFrom(from: number): number {
    const q = this.quotes;
    const at = lowerBound(q, from);
    return at < q.length ? q[at]! : this.stack.length;
  }

  /**
   * Is the current line a thematic break from `at` on (three or more of one of `*`, `-`, `_`,
   * with spaces or tabs between, to the line's end)? Read from the line's end once per line,
   * so asking at every marker of a long line of markers stays linear.
   */
  private breakFrom(at: number): boolean {
    if (this.brkCh < 0) {
      const s = this.s;
      const start = this.lineStart;
      let j = this.end;
      while (j > start && (s.charCodeAt(j - 1) === SPACE || s.charCodeAt(j - 1) === TAB)) j--;
      const ch = j > start ? s.charCodeAt(j - 1) : 0;
      this.brkCh = ch === 0x2a || ch === 0x2d || ch === 0x5f ? ch : 0;
      this.brkThird = -1;
      let n = 0;
      for (; this.brkCh !== 0 && j > start; j--) {
        const c = s.charCodeAt(j - 1);
        if (c === ch) {
          if (++n === 3) this.brkThird = j - 1;
        } else if (c !== SPACE && c !== TAB) break;
      }
      this.brkFrom = j;
    }
    return this.brkCh !== 0 && this.s.charCodeAt(at) === this.brkCh && at >= this.brkFrom && at <= this.brkThird;
  }

  /** End the leaf block in progress (a container's start or end closes it). */
  private closeFlow(): void {
    this.flow = NONE;
    this.fence = null;
  }

  /**
   * Read a list marker at the cursor (after `peek`, indentation at most 3) into `box`: for a
   * sibling of `box` the same marker only, else any; with `interrupt` only `1` as a number and
   * no blank start. Thematic breaks (`* * *`, `- - -`) are not markers. On success the cursor
   * is at the item's content and `box.size` is its content column from the line's position
   * before the marker's indentation.
   */
  private listItem(box: Box, interrupt: boolean): boolean {
    const s = this.s;
    const at = this.nn;
    const c = s.charCodeAt(at);
    let j = at;
    let marker: number;
    if (c === 0x2d || c === 0x2b || c === 0x2a) {
      if (box.marker !== 0 && (box.ordered || box.marker !== c)) return false;
      if (c !== 0x2b && this.breakFrom(at)) return false;
      marker = c;
      j++;
    } else if (c >= 48 && c <= 57) {
      if (box.marker !== 0 && !box.ordered) return false;
      while (j < this.end && j - at < 9 && s.charCodeAt(j) >= 48 && s.charCodeAt(j) <= 57) j++;
      const d = s.charCodeAt(j);
      if (j >= this.end || (d !== 0x2e && d !== 0x29)) return false;
      if (box.marker !== 0 && box.marker !== d) return false;
      if (interrupt && !(j - at === 1 && c === 49)) return false;
      marker = d;
      j++;
    } else return false;
    const lead = this.indent;
    const markerCols = j - at;
    // After the marker: blank, 1 to 4 columns of space then text, or more (indented code).
    const afterCol = this.nnCol + markerCols;
    const k = skipColumns(s, j, this.end, afterCol);
    const spaces = skipped - afterCol;
    const blankStart = k >= this.end;
    if (blankStart) {
      if (interrupt) return false;
    } else if (spaces === 0) return false;
    box.marker = marker;
    box.ordered = c >= 48 && c <= 57;
    box.initialBlank = blankStart;
    box.furtherBlank = false;
    this.i = j;
    this.col = afterCol;
    this.partial = false;
    if (blankStart || spaces > 4) {
      box.size = lead + markerCols + 1;
      if (!blankStart) this.advanceColumns(1);
    } else {
      box.size = lead + markerCols + spaces;
      this.advanceColumns(spaces);
    }
    return true;
  }

  /** Would the rest of the line (after `peek`, not blank, indentation at most 3) end a paragraph? */
  private interrupts(): boolean {
    const s = this.s;
    const at = this.nn;
    const end = this.end;
    return fenceOpener(s, at, end) > 0 || atxHeading(s, at, end) || this.breakFrom(at) || (s.charCodeAt(at) === LT && htmlStart(s, at, end, true) > 0);
  }

  /** A line inside the open fence: its closing line, or a line of code. */
  private fenceLine(): void {
    this.peek();
    const f = this.fence!;
    this.kind = 2;
    if (this.indent > 3 || this.blank) return;
    const s = this.s;
    const at = this.nn;
    if (s.charCodeAt(at) !== f.ch) return;
    let j = at;
    while (j < this.end && s.charCodeAt(j) === f.ch) j++;
    if (j - at >= f.len && skipBlank(s, j, this.end) === this.end) {
      this.closeFlow();
      this.kind = 3;
    }
  }

  /**
   * A line inside the open HTML block: a blank line ends kinds 6 and 7 (and is not theirs),
   * a line holding the end of kinds 1 to 5 is their last.
   */
  private htmlLine(): void {
    this.peek();
    const kind = this.html;
    if (this.blank ? kind >= 6 : kind <= 5 && htmlEnds(kind, this.s, this.i, this.end, false)) this.flow = NONE;
  }

  /** The rest of the line as a leaf block's line, in the innermost container. */
  private leafLine(): void {
    this.peek();
    const flow = this.flow;
    if (this.blank) {
      if (flow !== CODE) this.flow = NONE;
      return;
    }
    if (this.indent >= 4) {
      if (flow !== PARA) this.flow = CODE;
      return;
    }
    const s = this.s;
    const at = this.nn;
    const end = this.end;
    if (plain(s.charCodeAt(at))) {
      this.flow = PARA;
      return;
    }
    const run = fenceOpener(s, at, end);
    if (run > 0) {
      this.flow = FENCE;
      this.kind = 1;
      this.fence = { ch: s.charCodeAt(at), len: run, line: s.slice(at, end), indent: this.indent, prefix: prefixOf(this.stack) };
      return;
    }
    if (s.charCodeAt(at) === LT) {
      // A tag alone on its line (kind 7) cannot interrupt a paragraph.
      const kind = htmlStart(s, at, end, flow === PARA);
      if (kind > 0) {
        this.html = kind;
        if (kind === 1) this.htmlName = (RAW_NAME.exec(s.slice(at, at + 10))?.[1] ?? '').toLowerCase();
        this.flow = kind <= 5 && htmlEnds(kind, s, at + HTML_OPENER[kind]!, end, true) ? NONE : HTML;
        return;
      }
    }
    if (atxHeading(s, at, end) || this.breakFrom(at) || (flow === PARA && setextLine(s, at, end))) {
      this.flow = NONE;
      return;
    }
    this.flow = PARA;
  }
}

/**
 * Does a line whose first character that is not a space is `c` (a UTF-16 code unit) start a
 * paragraph's text whatever follows (no container, heading, break, underline or fence starts
 * with it)?
 */
function plain(c: number): boolean {
  if (c >= 0x61 ? c <= 0x7a : c >= 0x41 && c <= 0x5a) return true; // a letter
  switch (c) {
    case SPACE:
    case TAB:
    case GT:
    case 0x2d: // -
    case 0x2b: // +
    case 0x2a: // *
    case 0x5f: // _
    case 0x3d: // =
    case 0x23: // #
    case BACKTICK:
    case TILDE:
    case LT:
      return false;
    default:
      return !(c >= 48 && c <= 57);
  }
}

/** The prefix of lines inside the containers `stack` (`'> '` per quote, spaces per item). */
function prefixOf(stack: readonly Box[]): string {
  let p = '';
  for (const b of stack) p += b.quote ? '> ' : ' '.repeat(b.size);
  return p;
}

/**
 * The length of the fence run that opens a fence at `s[at, end)` (`at` on its first
 * character that is not a space): three or more backticks with no backtick after them on the
 * line, or three or more tildes; 0 when the line opens none.
 */
function fenceOpener(s: string, at: number, end: number): number {
  const ch = s.charCodeAt(at);
  if (ch !== BACKTICK && ch !== TILDE) return 0;
  let j = at;
  while (j < end && s.charCodeAt(j) === ch) j++;
  if (j - at < 3) return 0;
  if (ch === BACKTICK) {
    const b = s.indexOf('`', j);
    if (b >= 0 && b < end) return 0;
  }
  return j - at;
}

/** Is `s[at, end)` an ATX heading's line (one to six `#`, then a space, a tab or the end)? */
function atxHeading(s: string, at: number, end: number): boolean {
  let j = at;
  while (j < end && j - at < 7 && s.charCodeAt(j) === 0x23) j++;
  const n = j - at;
  if (n === 0 || n > 6) return false;
  return j === end || s.charCodeAt(j) === SPACE || s.charCodeAt(j) === TAB;
}

/** Is `s[at, end)` a setext heading's underline (`=` or `-` repeated, then spaces or tabs)? */
function setextLine(s: string, at: number, end: number): boolean {
  const ch = s.charCodeAt(at);
  if (ch !== 0x3d && ch !== 0x2d) return false;
  let j = at;
  while (j < end && s.charCodeAt(j) === ch) j++;
  return skipBlank(s, j, end) === end;
}

// HTML blocks (CommonMark 4.6), as micromark's html-flow reads them: the kind a line starts,
// and whether a line holds the end of kinds 1 to 5.

/** Tag names that start an HTML block of kind 1 (raw text, ended by a closing tag of any of them). */
const HTML_RAW = new Set(['pre', 'script', 'style', 'textarea']);

/** Tag names that start an HTML block of kind 6 (ended by a blank line). */
const HTML_BLOCK = new Set(
  (
    'address article aside base basefont blockquote body caption center col colgroup dd details dialog dir div dl dt fieldset ' +
    'figcaption figure footer form frame frameset h1 h2 h3 h4 h5 h6 head header hr html iframe legend li link main menu ' +
    'menuitem nav noframes ol optgroup option p param search section summary table tbody td tfoot th thead title tr track ul'
  ).split(' '),
);

/** Per kind 1 to 5, the length of its opening sequence (`<` and a letter, `<!--`, `<?`, `<!` and a letter, `<![CDATA[`). */
const HTML_OPENER = [0, 2, 4, 2, 3, 9];

const isAlpha = (c: number): boolean => (c | 0x20) >= 0x61 && (c | 0x20) <= 0x7a;
const isAlnum = (c: number): boolean => isAlpha(c) || (c >= 48 && c <= 57);

/**
 * The kind of HTML block (1 to 7) the line `s[at, end)` starts, `at` on its `<` after at most
 * three columns of indentation; 0 when it starts none. With `interrupt` (the line would
 * interrupt a paragraph) kind 7, a complete tag alone on its line, is not one.
 */
function htmlStart(s: string, at: number, end: number, interrupt: boolean): number {
  const ch = (i: number): number => (i < end ? s.charCodeAt(i) : -1);
  let j = at + 1;
  const c = ch(j);
  if (c === 0x21) {
    // `<!--` comment, `<![CDATA[`, `<!` and a letter: a declaration
    const d = ch(j + 1);
    if (d === 0x2d) return ch(j + 2) === 0x2d ? 2 : 0;
    if (d === 0x5b) return j + 8 <= end && s.startsWith('CDATA[', j + 2) ? 5 : 0;
    return isAlpha(d) ? 4 : 0;
  }
  if (c === 0x3f) return 3; // `<?`
  const closing = c === 0x2f;
  if (closing) j++;
  if (!isAlpha(ch(j))) return 0;
  let k = j + 1;
  while (isAlnum(ch(k)) || ch(k) === 0x2d) k++;
  const t = ch(k);
  if (!(t === -1 || t === 0x2f || t === GT || t === SPACE || t === TAB)) return 0;
  const name = k - j <= 10 ? s.slice(j, k).toLowerCase() : '';
  if (t !== 0x2f && !closing && HTML_RAW.has(name)) return 1;
  if (HTML_BLOCK.has(name)) return t !== 0x2f || ch(k + 1) === GT ? 6 : 0;
  if (interrupt) return 0;
  return completeTag(s, k, end, closing) ? 7 : 0;
}

/**
 * Is the rest of a line from `i` (after a tag's name) the rest of a complete open tag, or with
 * `closing` of a closing tag, followed by nothing but spaces and tabs? Attributes as micromark
 * reads them: a name (a letter, `_` or `:`, then letters, digits, `_`, `.`, `:`, `-`), and
 * perhaps `=` and a value, quoted or not.
 */
function completeTag(s: string, i: number, end: number, closing: boolean): boolean {
  const ch = (x: number): number => (x < end ? s.charCodeAt(x) : -1);
  const blank = (c: number): boolean => c === SPACE || c === TAB;
  if (!closing) {
    for (;;) {
      const c = ch(i);
      if (blank(c)) i++;
      else if (c === 0x2f) {
        i++;
        break;
      } else if (c === 0x3a || c === 0x5f || isAlpha(c)) {
        i++;
        for (let d = ch(i); isAlnum(d) || d === 0x2d || d === 0x2e || d === 0x3a || d === 0x5f; d = ch(++i));
        // After the name: spaces, then `=` and a value (an unquoted value may be followed by `=` again).
        for (;;) {
          while (blank(ch(i))) i++;
          if (ch(i) !== 0x3d) break;
          i++;
          while (blank(ch(i))) i++;
          const v = ch(i);
          if (v === -1 || v === LT || v === 0x3d || v === GT || v === BACKTICK) return false;
          if (v === 0x22 || v === 0x27) {
            const q = s.indexOf(String.fromCharCode(v), i + 1);
            if (q < 0 || q >= end) return false;
            i = q + 1;
            const a = ch(i);
            if (!(a === 0x2f || a === GT || blank(a))) return false;
            break;
          }
          for (let d = ch(i); d !== -1 && !blank(d) && !'"\'/<=>`'.includes(String.fromCharCode(d)); d = ch(++i));
        }
      } else break;
    }
  } else while (blank(ch(i))) i++;
  if (ch(i) !== GT) return false;
  return skipBlank(s, i + 1, end) === end;
}

/**
 * Does the line `s[from, end)` hold the end of an HTML block of kind 1 to 5 (a closing tag of
 * a raw-text element, `-->`, `?>`, `>`, `]]>`)? On the block's first line `from` is after its
 * opening sequence and `first` is set (`<!-->` and `<?>` end where they start). As micromark
 * reads it: `]]]>` ends no CDATA section.
 */
function htmlEnds(kind: number, s: string, from: number, end: number, first: boolean): boolean {
  if (kind === 1) return /<\/(?:pre|script|style|textarea)>/i.test(s.slice(from, end));
  // 0: in the block's text; 1: after one `-` (kind 2) or `]` (kind 5); 2: where `>` ends it
  let st = first && kind !== 5 ? 2 : 0;
  for (let i = from; i < end; i++) {
    const c = s.charCodeAt(i);
    if (st === 2) {
      if (c === GT) return true;
      if (c === 0x2d && kind === 2) continue;
    } else if (st === 1 && c === (kind === 2 ? 0x2d : 0x5d)) {
      st = 2;
      continue;
    }
    if (kind === 4 && c === GT) return true;
    st = (kind === 2 && c === 0x2d) || (kind === 5 && c === 0x5d) ? 1 : kind === 3 && c === 0x3f ? 2 : 0;
  }
  return false;
}

/**
 * Could some line of `s` start a container or an HTML block (a `>`, a list marker or an HTML
 * block's start after at most three spaces)? A text where none can holds neither, and its
 * fences are read by the fence lines alone (the fast scan). One walk over the line starts; the last few answers are kept,
 * since a cut asks about the same text several times.
 */
function needsBlockScan(s: string): boolean {
  for (const [k, v] of seen) if (k === s) return v;
  let found = false;
  // Lines after the last one with a fence run change no fence: after it a fence at top level is
  // either open (and they are its code) or none can open.
  const stop = Math.max(s.lastIndexOf('```'), s.lastIndexOf('~~~'));
  for (let i = docStartOf(s); i < stop; ) {
    let j = i;
    while (j < i + 3 && s.charCodeAt(j) === SPACE) j++;
    const c = s.charCodeAt(j);
    if (c === GT || (c === LT && htmlStart(s, j, lineEnd(s, j, s.length), false) > 0)) {
      found = true;
      break;
    }
    let k = j;
    if (c === 0x2d || c === 0x2b || c === 0x2a) k++;
    else if (c >= 48 && c <= 57) {
      while (k < s.length && k - j < 9 && s.charCodeAt(k) >= 48 && s.charCodeAt(k) <= 57) k++;
      const d = s.charCodeAt(k);
      k = d === 0x2e || d === 0x29 ? k + 1 : j;
    }
    if (k > j) {
      const d = s.charCodeAt(k);
      if (k >= s.length || d === SPACE || d === TAB || d === 10 || d === 13) {
        found = true;
        break;
      }
    }
    const nl = s.indexOf('\n', j);
    if (nl < 0) break;
    i = nl + 1;
  }
  seen.unshift([s, found]);
  if (seen.length > 4) seen.pop();
  return found;
}

/**
 * Whether a cut of `s` may need mending: `s` holds a fence run ({@link hasFenceRun}) or may
 * hold an HTML block that runs to an end marker.
 */
export function needsMending(s: string): boolean {
  return hasFenceRun(s) || mayHoldRawHtml(s);
}

/**
 * Could `s` hold an HTML block that runs to an end marker (kinds 1 to 5: `<!--`, `<?`, `<!X`,
 * `<![CDATA[`, `<pre`, `<script`, `<style`, `<textarea`)? Without, no cut of it can leave one open.
 */
function mayHoldRawHtml(s: string): boolean {
  return s.includes('<!') || s.includes('<?') || RAW_TAG.test(s);
}

const RAW_TAG = /<(?:pre|script|style|textarea)(?:[\s>]|$)/i;

/**
 * A line's start, as a cut leaves it, that is the unfinished start tag of an HTML block of kind
 * 1 (`<pre`, `<script src=a`: no `>` yet), after the markers of block quotes.
 */
const CUT_START_TAG = /^(?:[ \t]*>)*[ \t]*<(?:pre|script|style|textarea)(?:[ \t][^>]*)?$/i;

/** The tag name at the start of a line that opens an HTML block of kind 1. */
const RAW_NAME = /^<([A-Za-z]+)/;

/** The last texts {@link needsBlockScan} was asked about, with its answers (most recent first). */
const seen: [string, boolean][] = [];

// ---------------------------------------------------------------------------------------------
// The fast scan: no containers, so only fence lines matter (a fence line at most three columns
// in opens or closes; any other line leaves a fence as it is).

/**
 * The fence state after the line `s[start, end)` of a text without containers, given the
 * state `open` before it.
 */
function fastStep(s: string, start: number, end: number, open: OpenFence | null): OpenFence | null {
  const i = skipColumns(s, start, end, 0);
  const ch = s.charCodeAt(i);
  if (ch !== BACKTICK && ch !== TILDE) return open;
  const indent = skipped;
  if (indent >= 4) return open;
  if (open === null) {
    const run = fenceOpener(s, i, end);
    return run === 0 ? null : { ch, len: run, line: s.slice(i, end), indent, prefix: '' };
  }
  let j = i;
  while (j < end && s.charCodeAt(j) === ch) j++;
  if (ch === open.ch && j - i >= open.len && skipBlank(s, j, end) === end) return null;
  return open;
}

/**
 * The starts of the lines, from a line start on, that hold three backticks or tildes in a row,
 * in order: only such a line can be a fence line, so a scan of fences steps from one to the
 * next. Each of the two runs is looked for again only once the scan has passed the last found.
 */
class FenceLines {
  private tick = -2;
  private tilde = -2;
  constructor(private readonly s: string) {}

  /** The start of the first such line at or after the line start `from`, or -1. */
  next(from: number): number {
    const s = this.s;
    if (this.tick !== -1 && this.tick < from) this.tick = s.indexOf('```', from);
    if (this.tilde !== -1 && this.tilde < from) this.tilde = s.indexOf('~~~', from);
    const a = this.tick;
    const b = this.tilde;
    const at = a < 0 ? b : b < 0 ? a : Math.min(a, b);
    if (at < 0) return -1;
    return Math.max(from, s.lastIndexOf('\n', at - 1) + 1);
  }
}

/**
 * Whether `s` holds three backticks or three tildes in a row: a text without holds no fence
 * line (nor does a text made of its pieces and characters other than those two).
 */
export function hasFenceRun(s: string): boolean {
  return s.includes('```') || s.includes('~~~');
}

/**
 * A scan of `s` with a callback before each line: `visit(lineStart, blocks)` sees the state
 * before the line that starts at `lineStart` and returns `true` to stop there. Lines are read up
 * to `to` (the last one cut at `to`); an empty piece after a final line break is no line. With
 * no container line in `s` only fence lines are visited (the state between them stays as it is).
 * With `cutAt` (full scans only) `onCut` is given the state at that offset, its line read as
 * cut there. Returns the state where the scan stopped.
 */
function scan(
  s: string,
  to: number,
  start: FenceStart,
  visit?: (lineStart: number, fence: OpenFence | null, b: Blocks | null) => boolean,
  cutAt = -1,
  onCut?: (b: Blocks) => void,
  force = false,
): OpenFence | null {
  if (!force && !needsBlockScan(s)) {
    let st: OpenFence | null = null;
    const lines = new FenceLines(s);
    let i = lines.next(0);
    // After `» ` the first line is the mark's paragraph text.
    if (start === 'inline' && i === 0) {
      const nl = s.indexOf('\n');
      i = nl < 0 || nl >= to ? -1 : lines.next(nl + 1);
    }
    for (; i >= 0 && i < to; ) {
      if (visit?.(i, st, null)) return st;
      st = fastStep(s, i === 0 && start === 'fresh' ? docStartOf(s) : i, lineEnd(s, i, to), st);
      const nl = s.indexOf('\n', i);
      if (nl < 0 || nl >= to) break;
      i = lines.next(nl + 1);
    }
    visit?.(to, st, null);
    return st;
  }
  const b = new Blocks(start);
  let cut = cutAt < 0;
  for (let i = 0; i < to; ) {
    const nl = s.indexOf('\n', i);
    const e = nl < 0 || nl > to ? to : nl;
    if (!cut && cutAt <= e) {
      // The state at `cutAt`, its line read as cut there.
      cut = true;
      if (cutAt === i) onCut?.(b);
      else {
        const c = b.clone();
        c.line(s, i, lineEnd(s, i, cutAt));
        onCut?.(c);
      }
    }
    if (visit?.(i, b.fence, b)) return b.fence;
    b.line(s, i, e > i && s.charCodeAt(e - 1) === 13 ? e - 1 : e);
    if (nl < 0 || nl >= to) break;
    i = nl + 1;
  }
  if (!cut) onCut?.(b);
  visit?.(to, b.fence, b);
  return b.fence;
}

/**
 * How each line of `s` is read (read from `start`, by the block scanner whatever the text
 * holds): per line (split at `\n`, an empty piece after a final line break excluded) 0 outside
 * fenced code, 1 a fence's opening line, 2 a line of its code, 3 its closing line; and the
 * fence open at the end. For tests and checks.
 */
export function fenceLineKinds(s: string, start: FenceStart = 'fresh'): { kinds: number[]; open: OpenFence | null } {
  s = asLines(s);
  const b = new Blocks(start);
  const kinds: number[] = [];
  for (let i = 0; i < s.length; ) {
    b.line(s, i, lineEnd(s, i, s.length));
    kinds.push(b.kind);
    const nl = s.indexOf('\n', i);
    if (nl < 0) break;
    i = nl + 1;
  }
  return { kinds, open: b.fence };
}

/**
 * The fence left open at the end of `s.slice(from, to)` (its last, possibly partial, line
 * included), read from `start` (default: the start of a document); `null` when none is.
 */
export function openFenceAtEnd(s: string, from = 0, to = s.length, start: FenceStart = 'fresh'): OpenFence | null {
  if (from > 0) return openFenceAtEnd(s.slice(from, to), 0, to - from, start);
  return scan(asLines(s), to, start);
}

/**
 * The fence open where `s.slice(pos)` starts, in `s` as written (read from `start`): every line
 * that starts before `pos` is read whole (so a cut inside an opening line counts as inside its
 * block).
 */
export function openFenceAt(s: string, pos: number, start: FenceStart = 'fresh'): OpenFence | null {
  let at: OpenFence | null = null;
  scan(asLines(s), s.length, start, (i, f) => {
    at = f;
    return i >= pos;
  });
  return at;
}

/** The closing line of `f`, with the prefix that keeps it in the fence's containers. */
export function closerOf(f: OpenFence): string {
  return f.prefix + String.fromCharCode(f.ch).repeat(f.len);
}

/**
 * `s` with a closing line appended when it ends inside a fence (read from `start`), or inside
 * an HTML block that runs to an end marker (`<!--` without its `-->`, `<pre>` without its
 * `</pre>`, at top level), on a line of its own: right after a final line break, else after
 * one (a blank line would end a block quote and with it the fence, so the closing line would
 * open a new one).
 */
export function closeOpenFence(s: string, start: FenceStart = 'fresh'): string {
  const r = asLines(s);
  let f: OpenFence | null;
  let raw: string | null = null;
  if (needsBlockScan(r) || mayHoldRawHtml(r)) {
    const b = new Blocks(start);
    for (let i = 0; i < r.length; ) {
      b.line(r, i, lineEnd(r, i, r.length));
      const nl = r.indexOf('\n', i);
      if (nl < 0) break;
      i = nl + 1;
    }
    f = b.fence;
    if (f === null) raw = b.rawCloser();
  } else f = openFenceAtEnd(r, 0, r.length, start);
  if (f === null && raw === null) return s;
  const sep = r.charCodeAt(r.length - 1) === 10 ? '' : '\n';
  return `${s}${sep}${f !== null ? closerOf(f) : raw}`;
}

/** Does the line starting at `i` (up to `\n`) begin, after spaces or tabs, with three backticks or tildes? */
export function looksLikeFence(s: string, i = 0): boolean {
  if (i === 0) i = docStartOf(s);
  const end = lineEnd(s, i, s.length);
  const j = skipBlank(s, i, end);
  const ch = s.charCodeAt(j);
  if (ch !== BACKTICK && ch !== TILDE) return false;
  return s.charCodeAt(j + 1) === ch && s.charCodeAt(j + 2) === ch;
}

/**
 * Does the line starting at `i` hold three backticks or tildes after the markers of
 * containers it may start or continue (spaces, tabs, `>`, `-`/`+`/`*` or a number with `.` or
 * `)` followed by a space)? Such a line may be a fence line inside a block quote or a list
 * item, which a mark or a cut on it would break.
 */
export function looksLikeFenceInside(s: string, i = 0): boolean {
  if (i === 0) i = docStartOf(s);
  const end = lineEnd(s, i, s.length);
  let j = skipBlank(s, i, end);
  for (;;) {
    const c = s.charCodeAt(j);
    if (c === GT) {
      j = skipBlank(s, j + 1, end);
      continue;
    }
    let k = j;
    if (c === 0x2d || c === 0x2b || c === 0x2a) k++;
    else {
      while (k < end && k - j < 9 && s.charCodeAt(k) >= 48 && s.charCodeAt(k) <= 57) k++;
      if (k === j || (s.charCodeAt(k) !== 0x2e && s.charCodeAt(k) !== 0x29)) break;
      k++;
    }
    if (k >= end || (s.charCodeAt(k) !== SPACE && s.charCodeAt(k) !== TAB)) break;
    j = skipBlank(s, k, end);
  }
  const ch = s.charCodeAt(j);
  if (ch !== BACKTICK && ch !== TILDE) return false;
  return s.charCodeAt(j + 1) === ch && s.charCodeAt(j + 2) === ch;
}

/** Does the last line of `s` begin with three backticks or tildes (after spaces, tabs or container markers)? */
export function lastLineLooksLikeFence(s: string): boolean {
  s = asLines(s);
  return looksLikeFenceInside(s, s.lastIndexOf('\n') + 1);
}

/**
 * Join the head `s.slice(0, head)` and the tail `s.slice(tail)` of a middle cut around the
 * mark `' … '`, mending fences as {@link joinCutParts} does. Without fences this is
 * `head + ' … ' + tail`.
 */
export function joinCut(s: string, head: number, tail: number, start: FenceStart = 'fresh'): string {
  const j = joinCutParts(s, head, tail, start);
  return s.slice(0, j.head) + j.mid + s.slice(j.tail);
}

/**
 * {@link joinCut} as parts of `s` (read from `start`): the joined text is
 * `s.slice(0, head) + mid + s.slice(tail)`, where `head` and `tail` may be moved, and `mid` is
 * the mark `' … '` with the mending around it, so that the join can be counted from the pieces
 * of `s` and its seams:
 * - a cut inside a fence line (under container markers too) keeps none of that line: the head
 *   stops at its start and the tail starts after it;
 * - when the head and the tail are inside the same fence (no fence line between them), the cut
 *   is laid out as a cut of code (`lineCutParts`: the mark a line of the fence's code with its
 *   container prefix and the tail line's indentation, partial lines of at most `reach` units
 *   dropped, a cut within one line left inline), when the joined text reads the tail as that
 *   fence's code up to where it ends in `s`; otherwise as below;
 * - when the head ends inside a fence, a closing line with the fence's container prefix ends it
 *   before the mark, and the mark stands on a line of its own, in the containers the head and
 *   the tail share;
 * - when the tail starts inside a fence of `s` and keeps some of its code, the fence's opening
 *   line is repeated after the mark, with its container prefix and indentation, so that the
 *   tail's lines are its code up to the line where the fence ends in `s`; when the tail keeps
 *   only blanks of it, or the joined text would not read them so (the tail's containers cannot
 *   be opened again by a prefix alone), the tail starts where that fence ends in `s` instead,
 *   past blank lines;
 * - a tail that starts with a fence line starts a line.
 * Without fences `mid` is `' … '`. `reach` is 0 by default: prose keeps partial lines of code
 * (its cut is not tried again at a larger budget to use what a dropped line would leave).
 */
export function joinCutParts(s: string, head: number, tail: number, start: FenceStart = 'fresh', reach = 0): { head: number; mid: string; tail: number } {
  s = asLines(s);
  const hs = s.lastIndexOf('\n', head - 1) + 1;
  if (hs < head && looksLikeFenceInside(s, hs)) head = hs;
  const ts = s.lastIndexOf('\n', tail - 1) + 1;
  if (ts < tail && tail < s.length && looksLikeFenceInside(s, ts)) {
    const nl = s.indexOf('\n', tail);
    tail = nl < 0 ? s.length : nl + 1;
  }
  // The head's fence and containers, read up to `head` (its last line as cut): by the scan
  // for the tail below when it reads every line, else by a fast scan of its own.
  const full = needsBlockScan(s) || mayHoldRawHtml(s);
  let hBoxes: readonly Box[] = [];
  let hOpen: OpenFence | null = full ? null : scan(s, head, start);
  let hRaw: string | null = null;
  const atHead = (b: Blocks): void => {
    hOpen = b.fence;
    hBoxes = b.stack.map((x) => ({ ...x }));
    hRaw = b.rawCloser();
  };
  // The tail's fence and containers, and the line where that fence ends in `s`: `last` starts
  // its last line (the closing line, or the line that ends its container; else the text's last
  // line), `closed` tells whether it ends there or is still open at the end of `s`.
  let tOpen: OpenFence | null = null;
  let tIds: number[] = [];
  let last = -1;
  let closed = false;
  let closer = false; // it ends at a closing line (else at a line that ends its container)
  scan(
    s,
    s.length,
    start,
    (i, f, b) => {
      if (i < tail) return false;
      if (last < 0) {
        tOpen = f;
        tIds = b === null ? [] : b.stack.map((x) => x.id);
        if (f === null) return true;
      } else if (f !== tOpen) {
        closed = true;
        closer = f === null && looksLikeFenceInside(s, last);
        return true;
      }
      if (i < s.length) last = i;
      return false;
    },
    full ? head : -1,
    atHead,
    full,
  );
  // A side that ends or starts inside fenced code keeps whole lines of it where the partial
  // line holds little (at most PARTIAL_LINE characters after its indentation): the head's last
  // line goes, and the tail starts at the next line (the state there is the one read); a
  // partial tail starts where a reader can place it, or goes.
  const cutHead = head;
  const cutTail = tail;
  if (hOpen !== null && head > 0 && s.charCodeAt(head - 1) !== 10 && lineEnd(s, head, s.length) > head) {
    const hl = s.lastIndexOf('\n', head - 1) + 1;
    if (head - skipBlank(s, hl, head) <= PARTIAL_LINE) head = hl;
  }
  if (tOpen !== null && tail > 0 && tail < s.length && s.charCodeAt(tail - 1) !== 10) {
    const e = lineEnd(s, tail, s.length);
    // (from where a reader can place it: not `(self, m): …`, see placeableFrom)
    tail = placeableFrom(s, tail, e);
    if (e - skipBlank(s, tail, e) <= PARTIAL_LINE) {
      const nl = s.indexOf('\n', tail);
      tail = nl < 0 ? s.length : nl + 1;
    }
  }
  let before = ' …';
  if (hOpen !== null && tOpen !== null && !fenceLineBetween(s, head, tail)) {
    // The head and the tail in the same fenced block: the cut is laid out as a cut of code
    // (lineCutParts: the mark a line of the block, short partial lines dropped), where the
    // joined text reads the tail as that block's code up to where it ends in `s`.
    // Whole lines that would leave the block no code on either side: its partial pieces
    // instead, those of at least MIN_PIECE characters (`def` and `(3))` say nothing).
    const empty = !codeBefore(s, head) && !codeAfter(s, tail);
    const h = empty && cutHead - skipBlank(s, s.lastIndexOf('\n', cutHead - 1) + 1, cutHead) >= MIN_PIECE ? cutHead : head;
    const te = lineEnd(s, cutTail, s.length);
    const t = empty && te - skipBlank(s, cutTail, te) >= MIN_PIECE ? cutTail : tail;
    const c = lineCutParts(s, { head: h, mid: CUT_MARK, tail: t }, CUT_MARK, reach, (hOpen as OpenFence).prefix) as { head: number; mid: string; tail: number };
    if ((last < 0 || c.tail <= Math.max(t, last)) && reopens(s, c.head, c.mid, c.tail, last, closed, start)) return c;
  }
  if (hOpen !== null) {
    const hf: OpenFence = hOpen;
    // A head that keeps none of the block's code (blank lines at most) keeps none of the block.
    // (lines read back from the head's last kept character, `x`, to the first that is not blank)
    for (let x = head - 1; x >= 0; ) {
      if (s.charCodeAt(x) === 10) x--;
      const q = x < 0 ? 0 : s.lastIndexOf('\n', x) + 1;
      if (isBlank(s, q, x + 1)) {
        x = q - 1;
        continue;
      }
      if (s.slice(q, lineEnd(s, q, s.length)).endsWith(hf.line) && looksLikeFenceInside(s, q)) return joinCutParts(s, q, tail, start);
      break;
    }
    // The mark's line stays in the containers that the head and the tail are both in.
    let n = 0;
    while (n < hBoxes.length && n < tIds.length && hBoxes[n]!.id === tIds[n]) n++;
    before = `${head > 0 && s.charCodeAt(head - 1) === 10 ? '' : '\n'}${closerOf(hf)}\n${prefixOf(hBoxes.slice(0, n))}…`;
  }
  // A head that ends inside an HTML block that runs to its end marker (a comment, `<pre>`):
  // the marker closes it before the mark, so the tail is not hidden in it. A head cut inside
  // the start tag of such a block (`<pre` of `<pre class="x">`) keeps none of its line instead:
  // the piece would open the block only for the closer to end it (`<pre\n</pre>`).
  if (hOpen === null && hRaw !== null && head > 0 && s.charCodeAt(head - 1) !== 10) {
    const hl = s.lastIndexOf('\n', head - 1) + 1;
    if (lineEnd(s, head, s.length) > head && CUT_START_TAG.test(s.slice(hl, head))) return joinCutParts(s, hl, tail, start, reach);
  }
  if (hOpen === null && hRaw !== null) before = `${head > 0 && s.charCodeAt(head - 1) === 10 ? '' : '\n'}${hRaw}\n…`;
  if (tOpen !== null) {
    const f: OpenFence = tOpen;
    const mid = `${before}\n${f.prefix}${' '.repeat(f.indent)}${f.line}\n`;
    // The tail keeps code of that fence (not only blanks): reopened, when the joined text reads it so.
    if (!isBlank(s, tail, closed ? last : s.length) && reopens(s, head, mid, tail, last, closed, start)) return { head, mid, tail };
    // Else the tail starts after the fence, where it ends in `s`, past blank lines.
    const nl = s.indexOf('\n', last);
    tail = !closed ? s.length : !closer ? last : nl < 0 ? s.length : nl + 1;
    for (let e = s.indexOf('\n', tail); e >= 0 && isBlank(s, tail, e); e = s.indexOf('\n', tail)) tail = e + 1;
  }
  const atLine = tail === 0 || s.charCodeAt(tail - 1) === 10;
  const fenceNext = tail < s.length && (looksLikeFence(s, tail) || (atLine && looksLikeFenceInside(s, tail)));
  // (a mark on a line of its own with nothing after it takes no space after it)
  const after = fenceNext ? '\n' : (tail >= s.length && before !== ' …') || s.charCodeAt(tail) === 10 ? '' : ' ';
  return { head, mid: before + after, tail };
}

/**
 * Does a head ending at `head` inside fenced code keep some of it: is there a line that is not
 * blank between the fence's opening line and `head` (read back to the first line that is not
 * blank, which is code unless it is a fence line)?
 */
function codeBefore(s: string, head: number): boolean {
  for (let x = head - 1; x >= 0; ) {
    if (s.charCodeAt(x) === 10) x--;
    const q = x < 0 ? 0 : s.lastIndexOf('\n', x) + 1;
    if (!isBlank(s, q, x + 1)) return !looksLikeFenceInside(s, q);
    x = q - 1;
  }
  return false;
}

/** Does a tail starting at `tail` inside fenced code keep some of it (the first line that is not blank, not a fence line)? */
function codeAfter(s: string, tail: number): boolean {
  for (let i = tail; i < s.length; ) {
    const e = lineEnd(s, i, s.length);
    if (!isBlank(s, i, e)) return !looksLikeFenceInside(s, s.lastIndexOf('\n', i - 1) + 1);
    const nl = s.indexOf('\n', i);
    if (nl < 0) break;
    i = nl + 1;
  }
  return false;
}

/**
 * The longest piece of a line of fenced code (characters after its indentation) that a cut in
 * prose drops rather than keep as a partial line (the reach of a word-whole cut).
 */
const PARTIAL_LINE = 32;

/** The shortest piece of a line of code (characters) kept where whole lines would leave a block empty. */
const MIN_PIECE = 12;

/** Is `s.slice(from, to)` only spaces, tabs and line breaks (or empty)? */
function isBlank(s: string, from: number, to: number): boolean {
  for (let i = from; i < to; i++) {
    const c = s.charCodeAt(i);
    if (c !== SPACE && c !== TAB && c !== 10 && c !== 13) return false;
  }
  return true;
}

/**
 * Whether a line that starts after `head` and before `tail` in `s` looks like a fence line
 * (under container markers too, {@link looksLikeFenceInside}): without one, a fence open at
 * both ends of the range is one and the same block.
 */
function fenceLineBetween(s: string, head: number, tail: number): boolean {
  let i = head > 0 && s.charCodeAt(head - 1) === 10 ? head : s.indexOf('\n', head) + 1;
  while (i > 0 && i < tail) {
    if (looksLikeFenceInside(s, i)) return true;
    i = s.indexOf('\n', i) + 1;
  }
  return false;
}

/**
 * Does the joined text `s.slice(0, head) + mid + s.slice(tail)` read the tail's lines as the
 * code of the fence open where the tail starts, up to the line where the fence open at `tail`
 * ends in `s`? `last` and `closed` are as in {@link joinCutParts}, `last` an offset in `s`.
 */
function reopens(s: string, head: number, mid: string, tail: number, last: number, closed: boolean, start: FenceStart): boolean {
  const j = s.slice(0, head) + mid + s.slice(tail);
  const shift = head + mid.length - tail;
  let opened: OpenFence | null | undefined;
  let ok = false;
  scan(j, j.length, start, (i, f) => {
    if (i < tail + shift) return false;
    if (opened === undefined) {
      opened = f;
      if (f === null) return true;
    }
    if (i <= last + shift) return f !== opened;
    ok = closed ? f !== opened : f === opened;
    return true;
  });
  return ok;
}
