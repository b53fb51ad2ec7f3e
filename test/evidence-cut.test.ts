/**
 * Evidence-aware cuts of results and outputs (clean profile): which lines a cut keeps, the cut
 * marks, the budget, and that the reference profile is unchanged.
 */
import { describe, expect, it } from 'vitest';
import { evidenceCut, evidenceCutLines } from '../src/dsl/evidence-cut.js';
import { pieceFloor, surelyOverToks } from '../src/dsl/evidence-count.js';
import { mayHoldUrlOrPath } from '../src/dsl/evidence-scan.js';
import { pyNonBlankLines } from '../src/python/strings.js';
import { compactResult } from '../src/dsl/render.js';
import { cleanTruncMid } from '../src/dsl/graphemes.js';
import { lenToks, truncToksMid } from '../src/tokens/index.js';

const traceback = [
  'Traceback (most recent call last):',
  ...Array.from({ length: 12 }, (_, i) => `  File "/srv/app/mod${i}.py", line ${10 + i}, in f${i}`),
  '    return int(x)',
  "ValueError: invalid literal for int() with base 10: 'abc'",
].join('\n');

const table = ['name | size | rows', ...Array.from({ length: 20 }, (_, i) => `t${i} | ${100 + i * 7} | ${i * 3}`)].join('\n');

const build = [
  'Compiling...',
  ...Array.from({ length: 30 }, () => 'step xxxxx ok'),
  'see https://example.org/build/log',
  'done',
  'Process exited with code 2',
].join('\n');

describe('evidenceCut', () => {
  it('returns a result that fits whole, joined as compactResult joins it', () => {
    expect(evidenceCut('  short \n\n result ', 35)).toBe('> short ¶ result');
    expect(evidenceCut('', 35)).toBe('>');
    expect(evidenceCut('a\nb', 0)).toBe('');
  });

  it("keeps a traceback's first line, its innermost file and its exception, and marks the cut", () => {
    expect(evidenceCut(traceback, 38)).toBe(
      "> Traceback (most recent call last): … /srv/app/mod11.py … ValueError: invalid literal for int() with base 10: 'abc'",
    );
    // The exception's line cut to its two fifths would keep `10: 'abc'` (9 characters) after the
    // mark: it is kept whole instead, and at 35 tokens that leaves no room for the file.
    expect(evidenceCut(traceback, 35)).toBe("> Traceback (most recent call last): … return int(x) ¶ ValueError: invalid literal for int() with base 10: 'abc'");
  });

  it('keeps the URLs and paths of a line too long for its share, each once', () => {
    const listing = [
      'Searching 3 folders',
      `matches: ${Array.from({ length: 12 }, (_, i) => `see src/part${i % 3}/notes.md near the words of line ${i}`).join('; ')}`,
      'fetched https://example.org/a/b.html for more',
      'done',
    ].join('\n');
    expect(evidenceCut(listing, 40)).toBe('> Searching 3 folders … src/part0/notes.md … src/part1/notes.md … https://example.org/a/b.html … done');
  });

  it("keeps a table's header, first row and last row", () => {
    expect(evidenceCut(table, 35)).toBe('> name | size | rows ¶ t0 | 100 | 0 … t19 | 233 | 57');
  });

  it('keeps URL lines and the exit state of a long log', () => {
    // (The line's own `...` beside the cut mark goes: one mark shows, the cut's; it read
    // `> Compiling... … step`.)
    expect(evidenceCut(build, 35)).toBe('> Compiling … step xxxxx ok ¶ see https://example.org/build/log ¶ done ¶ Process exited with code 2');
  });

  it('falls back to the plain middle cut when fewer than two lines fit', () => {
    const one = 'one very long line '.repeat(50);
    // (The plain cut, moved off the space it kept beside the mark.)
    expect(truncToksMid(`> ${one.trim()}`, 20)).toBe('> one very long line one very long line …  line one very long line one very long line');
    expect(evidenceCut(one, 20)).toBe('> one very long line one very long line … line one very long line one very long line');
    const flat = `> ${traceback
      .split('\n')
      .map((l) => l.trim())
      .join(' ¶ ')}`;
    expect(truncToksMid(flat, 12)).toBe("> Traceback (most … 10: 'abc'");
    // (A short side that holds a number of two digits is kept.)
    expect(evidenceCut(traceback, 12)).toBe(truncToksMid(flat, 12));
    // A side shorter than 12 characters without one is dropped for more of the other: the end,
    // since the last line reports an error.
    const nameless = traceback.replace("10: 'abc'", "ten: 'abc'");
    expect(evidenceCut(nameless, 12)).toBe("> … int() with base ten: 'abc'");
  });

  it('never exceeds the budget', () => {
    const texts = [traceback, table, build, `${'é🙂 '.repeat(300)}\n${'x '.repeat(500)}\nend 42`];
    for (const t of texts) for (let k = 0; k <= 80; k += 3) expect(lenToks(evidenceCut(t, k))).toBeLessThanOrEqual(k);
  });
});

describe("evidenceCut once the room left is below a line's share", () => {
  // Budget 16: a line's share is 4 tokens; the prefix '> ' (2) and the closing mark leave 13.
  // 'end' and 'begin' (1 each, with a joint) leave 9; 'one two three four' (4 + joint) leaves 4,
  // room 3 < 4: the five 5-word lines are surely over it (passed over unclassed) and 'ok'
  // (1 token, two lines after 'begin') is still taken.
  const words = ['alpha', 'kappa', 'lambda', 'sigma', 'omega'].map((w) => `${w} beta gamma delta epsilon`);
  const text = ['begin', 'ok', ...words, 'one two three four', 'end'].join('\n');

  it('takes a short line late in the order', () => {
    expect(evidenceCut(text, 16)).toBe('> begin ¶ ok … one two three four ¶ end');
    expect(compactResult(text, 16, 'clean')).toBe('> begin ¶ ok … one two three four ¶ end');
  });

  it('gives the same cut from the lines a caller has', () => {
    const lines = pyNonBlankLines(traceback);
    const whole = `> ${lines.join(' ¶ ')}`;
    expect(evidenceCutLines(traceback, lines, whole, 35)).toBe(evidenceCut(traceback, 35));
    expect(evidenceCutLines(traceback, lines, whole, 38)).toBe(
      "> Traceback (most recent call last): … /srv/app/mod11.py … ValueError: invalid literal for int() with base 10: 'abc'",
    );
    expect(evidenceCutLines(text, pyNonBlankLines(text), '> begin ¶ ok', 16, {}, true)).toBe('> begin ¶ ok … one two three four ¶ end');
    expect(evidenceCutLines('a\nb', ['a', 'b'], '> a ¶ b', 0)).toBe('');
  });
});

describe('surelyOverToks', () => {
  it('counts pre-token boundaries: white space after other text, digits, letters before punctuation', () => {
    expect(surelyOverToks('', 0)).toBe(false);
    expect(surelyOverToks('', -1)).toBe(true);
    expect(surelyOverToks('x', 0)).toBe(true);
    // 'hello', ' world'
    expect(surelyOverToks('hello world', 1)).toBe(true);
    expect(surelyOverToks('hello world', 2)).toBe(false);
    // '123', '45'
    expect(surelyOverToks('12345', 1)).toBe(true);
    expect(surelyOverToks('12345', 2)).toBe(false);
    // 'a', '.b'; 'x', ':\n', 'y' (only the first boundary is claimed)
    expect(surelyOverToks('a.b', 1)).toBe(true);
    expect(surelyOverToks('x:\ny', 1)).toBe(true);
    expect(surelyOverToks('x:\ny', 2)).toBe(false);
    // 'a', '\u00a0b'
    expect(surelyOverToks('a\u00a0b', 1)).toBe(true);
    // 'ab', ' cd', ' ef', ' gh'
    expect(surelyOverToks('ab cd ef gh', 3)).toBe(true);
    expect(surelyOverToks('ab cd ef gh', 4)).toBe(false);
  });

  it('claims no boundary it cannot be sure of', () => {
    // A contraction stays in its word's piece; a non-ASCII digit may join an ASCII one.
    expect(surelyOverToks("don't", 1)).toBe(false);
    expect(surelyOverToks('1\u00b2', 1)).toBe(false);
    // White space after a line break belongs to the break's piece.
    expect(surelyOverToks('a\n b', 1)).toBe(false);
    // Camel case splits in two pieces, which this does not see.
    expect(surelyOverToks('HelloWorld', 1)).toBe(false);
  });
});

describe('pieceFloor', () => {
  it('counts the pieces that pre-token boundaries alone give, to the end when at most n', () => {
    expect(pieceFloor('', 5)).toBe(0);
    expect(pieceFloor('hello world', 10)).toBe(2); // 'hello', ' world'
    expect(pieceFloor('x, y', 10)).toBe(3); // 'x', ',', ' y'
    expect(pieceFloor('a1b2', 10)).toBe(4); // letters and digits apart
    expect(pieceFloor('1234567', 10)).toBe(3); // '123', '456', '7'
    expect(pieceFloor("don't", 10)).toBe(1); // no boundary is sure before the apostrophe
    expect(pieceFloor('a\u00a0b', 10)).toBe(2); // no-break space after a letter
  });
  it('stops once the count exceeds n, returning n + 1', () => {
    expect(pieceFloor('x', 0)).toBe(1);
    expect(pieceFloor('hello world', 1)).toBe(2);
    expect(pieceFloor('a b c d e f', 2)).toBe(3);
  });
});

describe('mayHoldUrlOrPath', () => {
  it('is false only without a slash and without a dot before a lower-case letter', () => {
    expect(mayHoldUrlOrPath('see /srv/x')).toBe(true);
    expect(mayHoldUrlOrPath('notes.md')).toBe(true);
    expect(mayHoldUrlOrPath('3.14 and 2.5')).toBe(false);
    expect(mayHoldUrlOrPath('Version 1.A')).toBe(false);
    expect(mayHoldUrlOrPath('')).toBe(false);
  });
});

describe('compactResult and profiles', () => {
  it('the clean profile cuts by evidence', () => {
    expect(compactResult(traceback, 35, 'clean')).toBe(evidenceCut(traceback, 35, { cut: cleanTruncMid }));
    expect(compactResult(traceback, 38, 'clean')).toBe(
      "> Traceback (most recent call last): … /srv/app/mod11.py … ValueError: invalid literal for int() with base 10: 'abc'",
    );
  });

  it('the reference profile keeps the middle cut', () => {
    expect(compactResult(traceback, 35, 'reference')).toBe(
      "> Traceback (most recent call last): ¶ File \"/srv/app/mod0.py …  ValueError: invalid literal for int() with base 10: 'abc'",
    );
  });
});

describe('evidenceCut reuses what it made', () => {
  const traceback = [
    'Traceback (most recent call last):',
    '  File "/srv/app/mod11.py", line 3, in <module>',
    '    int("abc")',
    "ValueError: invalid literal for int() with base 10: 'abc'",
  ].join('\n');
  it('gives a text cut again at a budget, or with other cut functions, what a first cut gives', () => {
    const first = evidenceCut(traceback, 35);
    expect(evidenceCut(traceback, 35)).toBe(first);
    // Other cut functions are used, not the cuts remembered from the first ones.
    const marked = (s: string, k: number): string => (k <= 0 ? '' : `${truncToksMid(s, k - 1)}`);
    expect(evidenceCut(traceback, 35, { cut: marked })).toBe(evidenceCut(traceback, 35, { cut: marked }));
    expect(evidenceCut(traceback, 35)).toBe(first);
  });
  it('cuts a line shared by two texts the same in both, with the counted cut each was given', () => {
    const long = `tail: ${'word '.repeat(40)}end`;
    const calls: string[] = [];
    const counted = (s: string, k: number): { text: string; tokens: number } => {
      calls.push(`${k}:${s.length}`);
      const text = cleanTruncMid(s, k);
      return { text, tokens: lenToks(text) };
    };
    const a = evidenceCut(`start\n${long}`, 40, { cut: cleanTruncMid, countedCut: counted });
    const b = evidenceCut(`begin\n${long}`, 40, { cut: cleanTruncMid, countedCut: counted });
    expect(a).toBe('> start ¶ tail: word word … word word word end');
    expect(a.endsWith(cleanTruncMid(long, 10))).toBe(true);
    expect(b.endsWith(cleanTruncMid(long, 10))).toBe(true);
    // The long last line is cut once for both texts.
    expect(calls).toEqual([`10:${long.length}`]);
    // A line of more than 2048 units is not remembered (it may keep a whole result alive): cut each time.
    const huge = `tail: ${'word '.repeat(410)}end`;
    calls.length = 0;
    evidenceCut(`start\n${huge}`, 40, { cut: cleanTruncMid, countedCut: counted });
    evidenceCut(`begin\n${huge}`, 40, { cut: cleanTruncMid, countedCut: counted });
    expect(huge.length).toBe(2059);
    expect(calls).toEqual(['10:2059', '10:2059']);
  });
});

describe('evidence cuts keep readable pieces', () => {
  const dates = [
    '0   1990-07-11',
    '1   1991-03-02',
    '2   1992-01-01',
    '3   1993-05-05',
    '4   1994-07-07',
    '5   1995-02-02',
    '6   1996-07-11',
    '7   2001-05-22',
    '8   1988-11-12',
    'Name: TIME, dtype: datetime64[us]',
  ].join('\n');
  const truncated = [
    '<TRUNCATED>…e id="_728f7d63">#| default_exp nc2csv</code><note id="_36aa09eb"># NetCDF to CSV',
    '> Convert MARIS standard NetCDF4 files into CSV files for the legacy SQL import pipeline.',
    'def add_taxon_info(dfs):',
    '    "Add taxon names to the biota group."',
    'add_taxon_info(test)',
    "test_eq(test['BIOTA']['TAXONNAME'].iloc[0], 'Fucus ve…</TRUNCATED>",
  ].join('\n');
  const listing = [
    '_netcdf2csv.ipynb  data\t\t   files\tmetadata.ipynb',
    'callbacks.ipynb    decoders.ipynb  geo.ipynb\tnc2csv.ipynb',
    'configs.ipynb\t   encoders.ipynb  match.ipynb\tutils.ipynb',
  ].join('\n');
  const consts = [
    '=== LUTs and constants (cell 4) ===',
    'DL_DETECTED = 1  # detected, above the detection limit',
    'DL_BELOW = 2  # below the detection limit',
    'DL_NOT_AVAILABLE = 3  # not available',
    ')',
  ].join('\n');

  it('keeps a date column’s dates whole: fewer lines, no pieces of dates', () => {
    // Cut to their share, the lines would keep `0 … 07-11`; whole, the first and the last fit.
    expect(compactResult(dates, 25, 'clean')).toBe('> 0   1990-07-11 … Name: TIME, dtype: datetime64[us]');
    // The last line's end, then (below two pieces) the plain cut's end alone.
    expect(compactResult(dates, 20, 'clean')).toBe('> 0   1990-07-11 … datetime64[us]');
    expect(compactResult(dates, 16, 'clean')).toBe('> … Name: TIME, dtype: datetime64[us]');
  });

  it('keeps a tool’s own <TRUNCATED> mark whole or not at all', () => {
    expect(compactResult(truncated, 40, 'clean')).toBe('> <TRUNCATED>…e … > Convert MARIS … SQL import pipeline. … add_taxon_info(test) … ve…</TRUNCATED>');
    expect(compactResult(truncated, 30, 'clean')).toBe('> <TRUNCATED>…e … add_taxon_info(test) … ve…</TRUNCATED>');
    expect(compactResult(truncated, 20, 'clean')).toBe('> … def add_taxon_info(dfs): … add_taxon_info(test) …');
    expect(compactResult(truncated, 16, 'clean')).toBe("> … 'Fucus ve…</TRUNCATED>");
  });

  it('keeps whole file names of a listing, not `configs. … .ipynb`', () => {
    expect(compactResult(listing, 20, 'clean')).toBe('> … configs.ipynb … encoders.ipynb … match.ipynb …');
    expect(compactResult(listing, 16, 'clean')).toBe('> … configs.ipynb … match.ipynb …');
  });

  it('cuts a single line to one readable side when the other would be a fragment', () => {
    const one = "ValueError: could not convert string to float: '1990-07-11T00:00:00' in column TIME of sheet 0";
    expect(compactResult(one, 12, 'clean')).toBe('> ValueError: could … TIME of sheet 0');
    expect(compactResult(one, 8, 'clean')).toBe('> ValueError: could not convert …');
    expect(compactResult(one, 8, 'reference')).toBe('> ValueError …  sheet 0');
  });

  it('never puts two cut marks side by side, and fits the budget', () => {
    expect(compactResult(consts, 20, 'clean')).toBe('> === LUTs and constants … )');
    expect(compactResult(consts, 24, 'clean')).toBe('> === LUTs and constants (cell 4) === … )');
    for (const t of [dates, listing, consts, traceback, table, build, truncated.replaceAll('…', '')]) {
      for (let k = 1; k <= 60; k++) {
        const out = compactResult(t, k, 'clean');
        expect(lenToks(out)).toBeLessThanOrEqual(k);
        expect(out).not.toMatch(/…\s*…/);
        expect(out).not.toMatch(/…\s*¶|¶\s*…/);
      }
    }
  });
});

describe('the exception line of a traceback', () => {
  // (the demo's cell: the message's lines follow the exception line, so it is not the last line)
  const tb = [
    'Traceback (most recent call last):',
    '  File "/srv/app/load.py", line 3, in <module>',
    '    df["placed"] = pd.to_datetime(df["placed"], format=fmt)',
    '  File "/usr/lib/python3/dist-packages/pandas/core/tools/datetimes.py", line 1067, in to_datetime',
    '    values = convert_listlike(arg._values, format)',
    'ValueError: time data "2024-03-17T09:41:05" doesn\'t match format "%Y-%m-%d %H:%M:%S", at position 48213. You might want to try:',
    '    - passing `format` if your strings have a consistent format;',
    "    - passing `format='ISO8601'` if your strings are all ISO8601 but not necessarily in exactly the same format;",
    "    - passing `format='mixed'`, and the format will be inferred for each element individually.",
  ].join('\n');

  it('leads the keeping order, kept whole within twice its share, else its start', () => {
    // 47 tokens: whole within twice two fifths of 60; the suggestions after it give way.
    expect(evidenceCut(tb, 60)).toBe(
      '> Traceback (most recent call last): … ValueError: time data "2024-03-17T09:41:05" doesn\'t match format "%Y-%m-%d %H:%M:%S", at position 48213. You might want to try: …',
    );
    // At 30 its start (the quoted date is a run of more tokens than its share has left), then the last line's end.
    expect(evidenceCut(tb, 30)).toBe('> Traceback (most recent call last): … ValueError: time data … be inferred for each element individually.');
  });
});
