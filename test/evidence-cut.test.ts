/**
 * Evidence-aware cuts of results and outputs (clean profile): which lines a cut keeps, the cut
 * marks, the budget, and that the reference profile is unchanged.
 */
import { describe, expect, it } from 'vitest';
import { evidenceCut } from '../src/dsl/evidence-cut.js';
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
    expect(evidenceCut(traceback, 35)).toBe("> Traceback (most recent call last): … /srv/app/mod11.py … ValueError: invalid literal for …  10: 'abc'");
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
    expect(evidenceCut(build, 35)).toBe('> Compiling... … step xxxxx ok ¶ see https://example.org/build/log ¶ done ¶ Process exited with code 2');
  });

  it('falls back to the plain middle cut when fewer than two lines fit', () => {
    const one = 'one very long line '.repeat(50);
    expect(evidenceCut(one, 20)).toBe(truncToksMid(`> ${one.trim()}`, 20));
    expect(evidenceCut(traceback, 12)).toBe(
      truncToksMid(
        `> ${traceback
          .split('\n')
          .map((l) => l.trim())
          .join(' ¶ ')}`,
        12,
      ),
    );
  });

  it('never exceeds the budget', () => {
    const texts = [traceback, table, build, `${'é🙂 '.repeat(300)}\n${'x '.repeat(500)}\nend 42`];
    for (const t of texts) for (let k = 0; k <= 80; k += 3) expect(lenToks(evidenceCut(t, k))).toBeLessThanOrEqual(k);
  });
});

describe('compactResult and profiles', () => {
  it('the clean profile cuts by evidence', () => {
    expect(compactResult(traceback, 35, 'clean')).toBe(evidenceCut(traceback, 35, { cut: cleanTruncMid }));
    expect(compactResult(traceback, 35, 'clean')).toBe(
      "> Traceback (most recent call last): … /srv/app/mod11.py … ValueError: invalid literal for  … 10: 'abc'",
    );
  });

  it('the reference profile keeps the middle cut', () => {
    expect(compactResult(traceback, 35, 'reference')).toBe(
      "> Traceback (most recent call last): ¶ File \"/srv/app/mod0.py …  ValueError: invalid literal for int() with base 10: 'abc'",
    );
  });
});
