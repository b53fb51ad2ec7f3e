/**
 * The evidence index of flat documents (clean profile): which facts are gathered, which are
 * listed for a body that lost them, the index budget, and where documents carry it.
 */
import { describe, expect, it } from 'vitest';
import { evidenceIndex, gatherFacts, prepareFacts } from '../src/dsl/evidence-index.js';
import { dlg2compact, fitFlatDocument, withFlatIndex } from '../src/dialog/compact.js';
import { FIT_FULL_LEGEND_STEP } from '../src/dialog/fit.js';
import { Dialog } from '../src/dialog/dialog.js';
import { flatDocument } from '../src/notebook/flat-notebook.js';
import { lenToks } from '../src/tokens/index.js';

const text = [
  'Loading /srv/app/config.yaml and ./data/raw/2024.csv',
  'see https://example.org/docs/api.html, then https://example.org/docs/api.html again.',
  'Traceback: KeyError: x; raise ValueError("y") </td> a/b if/else Error',
  'wrote report.md and a/b/c',
].join('\n');
const code = 'def load(path):\n    pass\nclass Parser:\n    x = 1\nLIMIT = 10\nif LIMIT == 10: pass';

describe('gatherFacts', () => {
  it('finds paths, URLs, error names and names defined in code, and nothing else', () => {
    const f = gatherFacts([{ text }, { text: code, code: true }]);
    expect([...f.files.keys()]).toEqual(['/srv/app/config.yaml', './data/raw/2024.csv', 'report.md']);
    expect([...f.urls.entries()]).toEqual([['https://example.org/docs/api.html', { count: 2, last: 1 }]]);
    expect([...f.errors.keys()]).toEqual(['KeyError', 'ValueError']);
    expect([...f.names.keys()]).toEqual(['load', 'Parser', 'LIMIT']);
  });

  it('takes no path from an escape, a division or a word pair', () => {
    const f = gatherFacts([{ text: '"File \\n/Users/me/app/core.py", x = self.data/other.data + 2/math.pi; and/or; nbs/api/callbacks.ipynb' }]);
    expect([...f.files.keys()]).toEqual(['/Users/me/app/core.py', 'nbs/api/callbacks.ipynb']);
  });

  it('takes no URL or path that a cut or an escape ends, and no scratch names', () => {
    const f = gatherFacts([
      { text: 'see https://h.org/a/b.html&#x27; and https://h.org/c\\n@x and https://h.org/lon … and /usr/local/lib/py …' },
      { text: 'i = 1\ndf = 2\ntotal = 3', code: true },
    ]);
    expect([...f.urls.keys()]).toEqual(['https://h.org/a/b.html', 'https://h.org/c']);
    expect(f.files.size).toBe(0);
    expect([...f.names.keys()]).toEqual(['total']);
  });

  it('takes no names from text that is not code, and no path from a URL', () => {
    const f = gatherFacts([{ text: 'x = 1\nsee https://h.org/a/b.py' }]);
    expect(f.names.size).toBe(0);
    expect([...f.urls.keys()]).toEqual(['https://h.org/a/b.py']);
    expect(f.files.size).toBe(0);
  });
});

describe('gatherFacts: names defined at line starts', () => {
  it('every line break a multiline search knows, white space over line ends, one match per search step', () => {
    const code =
      'def\n  spanning(x): pass\r\nwin_name = 1\rmac_name = 2\u2028sep_name: int = 3\u2029para_name=4\n  indented = 5\nsame == 6\n' +
      'async  def fetch_all(): pass\nclass\tKlass: pass\n_private = 7\n9bad = 8\ndef two(): x = 1';
    expect([...gatherFacts([{ text: code, code: true }]).names.keys()]).toEqual([
      'spanning',
      'win_name',
      'mac_name',
      'sep_name',
      'para_name',
      'fetch_all',
      'Klass',
      '_private',
      'two',
    ]);
  });
});

describe('evidenceIndex: the words a body shows', () => {
  const facts = prepareFacts(
    gatherFacts([{ text: 'KeyError ValueError load_data LoadData /a/b.py https://x.org/y' }, { text: 'def load_data(): pass\nLoadData = 1', code: true }]),
  );
  const head = '## Also in the dialog, cut above\n\n';
  it('a word starts at the first ASCII letter or `_` and runs over word characters', () => {
    // `3KeyError` and `éValueError` show the error names; `load_datas` and `xLoadData` show no name
    expect(evidenceIndex(facts, '3KeyError éValueError load_datas xLoadData', 100)).toBe(
      `${head}Paths: /a/b.py\nURLs: https://x.org/y\nDefined in code: LoadData, load_data`,
    );
    expect(evidenceIndex(facts, 'KeyError_ ValueError1 _load_data https://x.org/y /a/b.py', 100)).toBe(
      `${head}Errors: ValueError, KeyError\nDefined in code: LoadData, load_data`,
    );
    expect(evidenceIndex(facts, 'load_data LoadData', 100)).toBe(`${head}Paths: /a/b.py\nURLs: https://x.org/y\nErrors: ValueError, KeyError`);
  });
});

describe('evidenceIndex: a body with many words to look for', () => {
  // 40 names, more than are searched for one by one: the body's words are walked; `fact_00`,
  // `fact_10`, `fact_20` and `fact_30` share their first and last characters and their length
  const code = Array.from({ length: 40 }, (_, k) => `fact_${String(k).padStart(2, '0')} = ${k}`).join('\n');
  const facts = prepareFacts(gatherFacts([{ text: code, code: true }]));
  const head = '## Also in the dialog, cut above\n\n';
  it('shows a name after digits or a non-ASCII letter, at either end, not inside a word', () => {
    const body = 'fact_39 3fact_01 xfact_02 fact_03x éfact_04 fact_10 12fact_06_ fact_07';
    expect(evidenceIndex(facts, body, 1000)).toBe(
      `${head}Defined in code: fact_38, fact_37, fact_36, fact_35, fact_34, fact_33, fact_32, fact_31, fact_30, fact_29, fact_28, ` +
        'fact_27, fact_26, fact_25, fact_24, fact_23, fact_22, fact_21, fact_20, fact_19, fact_18, fact_17, fact_16, fact_15, ' +
        'fact_14, fact_13, fact_12, fact_11, fact_09, fact_08, fact_06, fact_05, fact_03, fact_02, fact_00',
    );
  });
  it('lists nothing when the body shows every name', () => {
    expect(evidenceIndex(facts, `${code}\nfact_00 again`, 1000)).toBe('');
  });
});

describe('evidenceIndex: a budget too small for any fact', () => {
  it('is empty below the heading and one fact with its separator', () => {
    const facts = prepareFacts(gatherFacts([{ text: 'KeyError' }]));
    const head = lenToks('## Also in the dialog, cut above\n\n');
    expect(evidenceIndex(facts, '', head + 1)).toBe('');
    expect(evidenceIndex(facts, '', head + 20)).toBe('## Also in the dialog, cut above\n\nErrors: KeyError');
  });
});

describe('evidenceIndex', () => {
  const facts = prepareFacts(gatherFacts([{ text }, { text: code, code: true }]));
  const body = 'shown: /srv/app/config.yaml and load';

  it('lists what the body does not show, latest first within a class, by class', () => {
    expect(evidenceIndex(facts, body, 60)).toBe(
      '## Also in the dialog, cut above\n\nPaths: report.md, ./data/raw/2024.csv\nURLs: https://example.org/docs/api.html\nErrors: ValueError, KeyError\nDefined in code: LIMIT, Parser',
    );
  });

  it('a small budget takes the facts that cover the most of their class per token', () => {
    // the one URL is all of its class; errors and names are half and a third of theirs
    expect(evidenceIndex(facts, body, 25)).toBe('## Also in the dialog, cut above\n\nURLs: https://example.org/docs/api.html');
  });

  it('is empty when nothing is missing or nothing fits, and never over budget', () => {
    expect(evidenceIndex(facts, `${text}\n${code}`, 60)).toBe('');
    expect(evidenceIndex(facts, body, 0)).toBe('');
    expect(evidenceIndex(facts, body, 9)).toBe('');
    for (let k = 0; k <= 70; k++) expect(lenToks(evidenceIndex(facts, body, k))).toBeLessThanOrEqual(k);
  });
});

describe('flat documents carry the index', () => {
  const out = Array.from({ length: 30 }, (_, i) => `wrote out/part${i}.csv with ${100 + i} rows`).join('\n');
  // The code cell sits in a middle turn, where its result keeps the base 35 tokens (rule 32).
  const d = new Dialog([], { name: 'idx' });
  d.mkMessage('Start.', { type: 'prompt', id: 'p0', reply: '' });
  d.mkMessage('def save(rows):\n    pass\nsave(range(30))', { type: 'code', id: 'c1', output: [{ output_type: 'stream', name: 'stdout', text: `${out}\n` }] });
  d.mkMessage('Which file failed?', { type: 'prompt', id: 'p1', reply: 'None did.' });
  for (const q of ['Next.', 'And next.', 'Last.']) d.mkMessage(q, { type: 'prompt', reply: '' });

  it('withFlatIndex follows the body with the files its cut result lost', () => {
    const body = dlg2compact(d);
    expect(body).toBe(
      '§ Start. §\n\n***\n\n#_c1\n```python\ndef save(rows):\n    pass\nsave(range(30))\n```\n> wrote out/part0.csv with 100 rows … out/part28.csv … wrote out/part29.csv with 129 rows\n§ Which file failed? §\n» None did. »' +
        '\n\n***\n\n§ Next. §\n\n***\n\n§ And next. §\n\n***\n\n§ Last. §',
    );
    expect(withFlatIndex(d, body, 30)).toBe(`${body}\n\n## Also in the dialog, cut above\n\nPaths: out/part27.csv, out/part26.csv, out/part25.csv`);
    // the default budget is one token per 300 characters of the body: none for this small one
    expect(withFlatIndex(d, body)).toBe(body);
  });

  it('a long dialog gets its index before the pointer to the transcript; not without the legend', () => {
    const big = new Dialog([], { name: 'big' });
    for (let t = 0; t < 8; t++) {
      const o = Array.from({ length: 30 }, (_, i) => `wrote out/t${t}/part${i}.csv with ${100 + i} rows`).join('\n');
      big.mkMessage(`print(${t})`, { type: 'code', id: `c${t}`, output: [{ output_type: 'stream', name: 'stdout', text: `${o}\n` }] });
      big.mkMessage(`Request ${t}: ${'tell me more about it. '.repeat(20)}`, {
        type: 'prompt',
        id: `p${t}`,
        reply: `Reply ${t}: ${'more words here. '.repeat(60)}`,
      });
    }
    const doc = flatDocument(big, { source: 'big.ipynb' });
    expect(
      doc.endsWith(
        '## Also in the dialog, cut above\n\nPaths: out/t7/part11.csv, out/t7/part10.csv\n\nIf further detail is needed, read the complete transcript at: big.ipynb',
      ),
    ).toBe(true);
    expect(flatDocument(big, { source: 'big.ipynb', legend: false })).toBe(dlg2compact(big));
    expect(flatDocument(big, { policy: { profile: 'reference' } })).not.toContain('## Also in the dialog');

    // fitted: the legend in brief at low steps, an index within the budget
    const wrap = (b: string, brief: boolean): string => `${brief ? 'KEY' : 'LEGEND'}\n\n${b}`;
    const f = fitFlatDocument(big, 600, {}, wrap, true);
    expect(f.report.step).toBeLessThan(FIT_FULL_LEGEND_STEP);
    expect(f.text.startsWith('KEY\n\n#_c0\n')).toBe(true);
    expect(f.text).toContain('\n\n## Also in the dialog, cut above\n\nPaths: out/t7/part29.csv, out/t7/part28.csv, ');
    expect(f.report.indexTokens).toBeGreaterThan(0);
    expect(lenToks(f.text)).toBe(f.report.tokens);
    expect(f.report.tokens).toBeLessThanOrEqual(600);
    const loose = fitFlatDocument(big, 100_000, {}, wrap, true);
    expect(loose.text).toBe(`LEGEND\n\n${dlg2compact(big, { userToks: 1e9, asstToks: 1e9, callToks: 1e9, resultToks: 1e9 })}`);
    expect(loose.report.indexTokens).toBe(0);
  });
});
