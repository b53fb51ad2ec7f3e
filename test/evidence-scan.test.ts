/**
 * Finding URLs, paths and error names for the evidence cut and index: exact spans, the
 * escapes and cut marks they stop at, and inputs on which a backtracking regular expression
 * would take quadratic time.
 */
import { describe, expect, it } from 'vitest';
import { cutAt, eachError, eachPath, eachPathSpan, eachUrl, eachUrlSpan, errorSpans, hasUrlOrPath, pathSpans, urlSpans } from '../src/dsl/evidence-scan.js';
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
    // (a template's field ends it: what comes before is the address)
    expect(texts(urlSpans("f'http://localhost:{port}/x' and https://a.org/v1/m?key={key} but https://{host}/r"))).toEqual([
      'http://localhost',
      'https://a.org/v1/m?key=',
    ]);
  });

  it('paths: rooted with two parts or an extension, relative with a known extension, bare names', () => {
    const t = 'at /srv/app, ~/x.csv, ./a/b, a/b.py, a/b/c, 2/math.pi, </td>, \\n/usr/lib/x, notes.md, x.y.md, -run.sh';
    expect(texts(pathSpans(t))).toEqual(['/srv/app', '~/x.csv', './a/b', 'a/b.py', '/usr/lib/x', 'notes.md', 'run.sh']);
    expect(texts(pathSpans('cut /usr/local/lib/py … and /srv/app<TRUNCATED> but /srv/web <TRUNCATED>', true))).toEqual(['/srv/web']);
    // (a new user's review: a name after a printed `\t` escape, and attributes of `self`, are no file names)
    const printed = "' M nbs/core.py\\n?? \\tSOLVEIT.ipynb' and style=f'height:{self.h}px' of self.html(), this.md, cls.py, m.html";
    expect(texts(pathSpans(printed))).toEqual(['nbs/core.py', 'SOLVEIT.ipynb', 'm.html']);
    const seen: string[] = [];
    eachPath(printed, false, (p) => seen.push(p));
    expect(seen).toEqual(['nbs/core.py', 'SOLVEIT.ipynb', 'm.html']);
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

describe('span callbacks (the evidence cut)', () => {
  it('give the offsets of URLs and paths in order, and stop when the callback says so', () => {
    const t = 'see https://x.org/a and /srv/app/main.py or ./b/c.csv';
    const urls: Array<[number, number]> = [];
    eachUrlSpan(t, (a, b) => urls.push([a, b]) < 0);
    expect(urls).toEqual([[4, 19]]);
    const paths: Array<[string, number, number]> = [];
    eachPathSpan(t, (p, a, b) => paths.push([p, a, b]) < 0);
    expect(paths).toEqual([
      ['/srv/app/main.py', 24, 40],
      ['./b/c.csv', 44, 53],
    ]);
    const first: string[] = [];
    eachPathSpan(t, (p) => first.push(p) > 0);
    expect(first).toEqual(['/srv/app/main.py']);
  });
});

describe('callback scanners (the evidence index)', () => {
  const collect = (scan: (fn: (x: string) => void) => void): string[] => {
    const out: string[] = [];
    scan((x) => out.push(x));
    return out;
  };
  const cases = [
    'see https://a.org/x, (https://b.org/y) "https://c.org/z**" https://d.org/p&#x27; https://e.org/q\\n@r https://f.org/lo…',
    // a `&` further back than a character reference reaches, and one just within it
    'https://a.org/q?x=1&y=2 https://b.org/?a&quot; https://c.org/p&abcdefgh; s3://b/k gs://x/y.csv HTTPS://U.ORG/Z x://no',
    'at /srv/app, ~/x.csv, ./a/b, a/b.py, a/b/c, 2/math.pi, </td>, \\n/usr/lib/x, notes.md, x.y.md, -run.sh, ../up/one.tar',
    // extensions: upper case, too long, followed by a word character, at the very end
    'a.PY b.pyx c.parquet d.parquets e.md_ f.md2 /r/~x.csv /r/a.b~.py /x.toolongext ~/f.c++ end.py',
    'cut /usr/local/lib/py … and /srv/app<TRUNCATED> but /srv/web <TRUNCATED> x//y/z.py a:/b/c.py',
    'KeyError \\nValueError my_Error Error xError OSError1 é_KeyError 3KeyError NotAnException',
    // runs read in place: at both ends of the text, empty after trimming, `//` inside, an extension further back than one reaches
    '/srv/x at the start, ./ ~/ a./ /a. a/b/c.parquets a/b.superlong/c.py ../a/b ~/d/e.c a//b x/y//z.py then/at/end/of.md',
    'ends in a dot. and in a name.py',
    'ends in a slash /srv/app/',
  ];
  it('pass the texts of the span scanners, in the same order', () => {
    for (const t of cases) {
      for (const cut of [false, true]) {
        // (eachUrl and urlSpans share one scanner: their exact finds are checked below.)
        expect(collect((f) => eachPath(t, cut, f))).toEqual(texts(pathSpans(t, cut)));
      }
      expect(collect((f) => eachError(t, f))).toEqual(texts(errorSpans(t)));
    }
  });

  it('exact finds, and with `wanted` only those in it', () => {
    expect(collect((f) => eachUrl(cases[1]!, false, f))).toEqual([
      'https://a.org/q?x=1&y=2',
      'https://b.org/?a',
      'https://c.org/p&abcdefgh',
      's3://b/k',
      'gs://x/y.csv',
      'HTTPS://U.ORG/Z',
    ]);
    expect([...urlSpans(cases[1]!)].map((u) => [u.start, u.end])).toEqual([
      [0, 23],
      [24, 40],
      [47, 71],
      [73, 81],
      [82, 94],
      [95, 110],
    ]);
    // `/x.toolongext`: a rooted name's extension has at most 8 characters; `x.csv` is the bare name after `~`
    expect(collect((f) => eachPath(cases[3]!, false, f))).toEqual(['/r/~x.csv', '/r/a.b~.py', 'c.parquet', 'x.csv', 'end.py']);
    expect(collect((f) => eachPath(cases[3]!, false, f, new Set(['end.py', '/r/~x.csv', 'b.pyx'])))).toEqual(['/r/~x.csv', 'end.py']);
    expect(collect((f) => eachError(cases[5]!, f))).toEqual(['KeyError', 'ValueError', 'NotAnException']);
    // `a//b`, `x/y//z.py`: no path; `a/b/c.parquets`, `.superlong`: no extension; `e.c`, `of.md`: parts of paths
    expect(collect((f) => eachPath(cases[6]!, false, f))).toEqual(['/srv/x', 'a/b.superlong/c.py', '../a/b', '~/d/e.c', 'then/at/end/of.md']);
    expect(collect((f) => eachPath(cases[7]!, false, f))).toEqual(['name.py']);
    expect(collect((f) => eachPath(cases[8]!, true, f))).toEqual(['/srv/app']);
  });
});
