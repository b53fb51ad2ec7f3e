// Where a flat document's Markdown puts code: the offsets of every code node (fenced or
// indented) as remark-parse (mdast) reads the document, and the check that no turn separator
// and no piece meant to be read outside code (anything but a code cell's fenced source) starts
// inside one. Used by scripts/profile-check.mjs and by the tests.
import remarkParse from 'remark-parse';
import { unified } from 'unified';

const parser = unified().use(remarkParse);

/** [start, end) offsets (UTF-16) of the code nodes of a Markdown document, in document order. */
export function codeRanges(doc) {
  const out = [];
  const walk = (node) => {
    if (node.type === 'code' && node.position) out.push([node.position.start.offset, node.position.end.offset]);
    for (const c of node.children ?? []) walk(c);
  };
  walk(parser.parse(doc));
  return out.sort((a, b) => a[0] - b[0]);
}

/** Is `offset` inside one of the sorted, disjoint `ranges`? */
function inside(ranges, offset) {
  let lo = 0;
  let hi = ranges.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const [a, b] = ranges[mid];
    if (offset < a) hi = mid - 1;
    else if (offset >= b) lo = mid + 1;
    else return true;
  }
  return false;
}

/**
 * The pieces and separators of a flat rendering (turns of `{cls, text}` pieces, as
 * `flatPieces` gives them) that start inside a code node of the joined document:
 * `{ doc, misplaced: [{ kind: 'separator' | 'piece', offset, line }] }`. A fenced piece (a code
 * cell's source, a Python tool call) is code by design and is not checked; a `#_id` line is.
 */
export function misplacedLines(turns) {
  const starts = [];
  const seps = [];
  let doc = '';
  for (const t of turns) {
    const pieces = t.filter((x) => x.text !== '');
    if (pieces.length === 0) continue;
    if (doc !== '') {
      seps.push(doc.length + 2);
      doc += '\n\n***\n\n';
    }
    pieces.forEach((x, i) => {
      if (i > 0) doc += '\n';
      const fenced = /^[`~]{3}/.test(x.text);
      if (!fenced) starts.push(doc.length);
      doc += x.text;
    });
  }
  const ranges = codeRanges(doc);
  const line = (o) => doc.slice(o, Math.min(doc.length, o + 60)).split('\n')[0];
  const misplaced = [
    ...seps.filter((o) => inside(ranges, o)).map((offset) => ({ kind: 'separator', offset, line: line(offset) })),
    ...starts.filter((o) => inside(ranges, o)).map((offset) => ({ kind: 'piece', offset, line: line(offset) })),
  ];
  return { doc, misplaced };
}
