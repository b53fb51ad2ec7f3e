/**
 * Finding URLs, paths and error names for the evidence cut and index: exact spans, the
 * escapes and cut marks they stop at, and inputs on which a backtracking regular expression
 * would take quadratic time.
 */
import { describe, expect, it } from 'vitest';
import { cutAt, errorSpans, hasUrlOrPath, pathSpans, urlSpans } from '../src/dsl/evidence-scan.js';
import { compactResult } from '../src/dsl/render.js';
import { gatherFacts } from '../src/dsl/evidence-index.js';

const texts = (it: Iterable<{ text: string }>): string[] => [...it].map((s) => s.text);

describe('evidence scanners', () => {
  it('URLs end at white space, quotes, brackets, a backslash or a cut; trailing punctuation and references go', () => {
    const t = 'see https://a.org/x, (https://b.org/y) "https://c.org/z**" https://d.org/p&#x27; https://e.org/q\\n@r https://f.org/lo…';
    const at = (u: string): number => t.indexOf(u);
    expect([...urlSpans(t)].map((s) => [s.start, s.text])).toEqual(
      ['https://a.org/x', 'https://b.org/y', 'https://c.org/z', 'https://d.org/p', 'https://e.org/q', 'https://f.org/lo'].map((u) => [at(u), u]),
    );
    expect(texts(urlSpans(t, true))).toEqual(['https://a.org/x', 'https://b.org/y', 'https://c.org/z', 'https://d.org/p', 'https://e.org/q']);
    expect(texts(urlSpans('xhttps://a.org mailto://b ftp://c.org'))).toEqual(['ftp://c.org']);
  });

  it('paths: rooted with two parts or an extension, relative with a known extension, bare names', () => {
    const t = 'at /srv/app, ~/x.csv, ./a/b, a/b.py, a/b/c, 2/math.pi, </td>, \\n/usr/lib/x, notes.md, x.y.md, -run.sh';
    expect(texts(pathSpans(t))).toEqual(['/srv/app', '~/x.csv', './a/b', 'a/b.py', '/usr/lib/x', 'notes.md', 'run.sh']);
    expect(texts(pathSpans('cut /usr/local/lib/py … and /srv/app<TRUNCATED> but /srv/web <TRUNCATED>', true))).toEqual(['/srv/web']);
    expect(cutAt('a …', 1)).toBe(true);
    expect(cutAt('a b', 1)).toBe(false);
  });

  it('error names: capitalised, not the bare word, not after an escape letter', () => {
    expect(texts(errorSpans('KeyError, \\nValueError, Error, my_Error, HTTPException, errorError'))).toEqual(['KeyError', 'ValueError', 'HTTPException']);
  });

  it('a line holds a URL or a path, or neither', () => {
    expect(hasUrlOrPath('see https://x.org')).toBe(true);
    expect(hasUrlOrPath('wrote out/part1.csv')).toBe(true);
    expect(hasUrlOrPath('and/or if/else 3/4')).toBe(false);
  });

  it('long runs of hyphens, dots, slashes or error words scan in linear time', () => {
    const inputs = ['a-'.repeat(100_000), 'x.'.repeat(100_000), 'well-known-'.repeat(20_000), `${'a/'.repeat(50)} `.repeat(2_000), 'Error'.repeat(50_000)];
    const t0 = performance.now();
    for (const s of inputs) {
      compactResult(`${s}\nend`, 35, 'clean');
      gatherFacts([{ text: s, code: true }]);
    }
    // a backtracking scan of these takes minutes; a linear one well under a second each
    expect(performance.now() - t0).toBeLessThan(10_000);
  });
});

describe('facts of tool calls', () => {
  it('names defined in the code a tool call runs, errors in its result; prose defines nothing', async () => {
    const { Dialog } = await import('../src/dialog/dialog.js');
    const { withFlatIndex } = await import('../src/dialog/compact.js');
    const d = new Dialog([], { name: 'calls' });
    const block = JSON.stringify(
      { id: 't1', name: 'py', args: { code: 'def load_orders(p):\n    pass\nORDERS_PATH = "x"' }, result: 'Traceback\nFileNotFoundError: no' },
      null,
      2,
    );
    d.mkMessage('Load them', { type: 'prompt', id: 'p1', reply: `Answer: x = 5 is fine.\n\n\`\`\`json {.tool}\n${block}\n\`\`\`` });
    expect(withFlatIndex(d, '', 100)).toBe('\n\n## Also in the dialog, cut above\n\nErrors: FileNotFoundError\nDefined in code: ORDERS_PATH, load_orders');
  });
});
