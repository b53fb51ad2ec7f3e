/**
 * The command counts only what its report shows (src/cli/counts.ts), seeds ids with the native
 * SHA-256, and reads and writes notebook text by faster paths: every figure, id and byte must be
 * what the full measures, `seededIds` and the lossless parser give.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { main } from '../src/cli/main.js';
import type { FileReport, FileResult } from '../src/cli/job.js';
import { reportLine, totalLine } from '../src/cli/report.js';
import { countAfterPromptEdits, countDialog, countInput, type CountLevel } from '../src/cli/counts.js';
import { nativeSeededIds } from '../src/cli/process-file.js';
import { compactDialog } from '../src/dialog/compact.js';
import { seededIds } from '../src/dialog/ids.js';
import { measureDialog } from '../src/dialog/measure.js';
import { microCompactDialog } from '../src/dialog/micro.js';
import { dumpsIpynb, readsIpynb, readsIpynbBytes } from '../src/notebook/index.js';
import { fcParams, FIXTURES, ROOT, thrown } from './support.js';

const DEMO = readFileSync(join(ROOT, 'notebooks', 'demo.ipynb'));
const NOTEBOOKS = readdirSync(join(FIXTURES, 'notebooks'))
  .filter((f) => f.endsWith('.ipynb'))
  .sort();
const inputs: [string, Uint8Array][] = [['demo.ipynb', DEMO], ...NOTEBOOKS.map((f): [string, Uint8Array] => [f, readFileSync(join(FIXTURES, 'notebooks', f))])];

describe('ids seeded with the native SHA-256', () => {
  it('are the ids of seededIds', () => {
    const ids = nativeSeededIds(DEMO);
    expect([ids(), ids(), ids()]).toEqual(['780c355f', 'da49045b', '6a47d58e']);
    const empty = nativeSeededIds(new Uint8Array());
    expect([empty(), empty()]).toEqual(['0ed41b58', 'd38c0ef3']);
  });

  it('on any bytes', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 300 }), fc.integer({ min: 1, max: 5 }), (bytes, n) => {
        const a = seededIds(bytes);
        const b = nativeSeededIds(bytes);
        for (let i = 0; i < n; i++) expect(b()).toBe(a());
      }),
      fcParams(50),
    );
  });
});

describe('counts at the level a report shows', () => {
  it.each(inputs)('%s: totals equal measureDialog before and after prompt edits', (name, bytes) => {
    const d = readsIpynbBytes(bytes, name);
    const full = measureDialog(d);
    for (const level of ['total', 'none'] as CountLevel[]) {
      const c = countInput(d, level);
      expect([c.stats.messages, c.stats.prompts]).toEqual([full.messages, full.prompts]);
      expect(c.stats.tokens.total).toBe(level === 'total' ? full.tokens.total : 0);
    }
    expect(countInput(d, 'classes').stats).toEqual(full);
    const input = countInput(d, 'total');
    expect(countDialog(d, 'total').total).toBe(full.tokens.total);
    const compacted = compactDialog(readsIpynbBytes(bytes, name));
    expect(countAfterPromptEdits(compacted, 'total', input).total).toBe(measureDialog(compacted).tokens.total);
    expect(countAfterPromptEdits(compacted, 'classes', input)).toEqual(measureDialog(compacted).tokens);
    const micro = readsIpynbBytes(bytes, name);
    microCompactDialog(micro, { keepRecent: 0 });
    expect(countAfterPromptEdits(micro, 'total', input).total).toBe(measureDialog(micro).tokens.total);
  });

  it('the demo: 5029 tokens before, 2479 after in-place compaction', () => {
    const d = readsIpynbBytes(DEMO, 'demo.ipynb');
    const input = countInput(d, 'total');
    expect(input.stats.tokens).toEqual({ user: 0, assistant: 0, calls: 0, results: 0, code: 0, total: 5029 });
    expect(countAfterPromptEdits(compactDialog(d), 'total', input).total).toBe(2479);
  });

  it('a malformed output fails at every level with the error of measureDialog', () => {
    const text = JSON.stringify({
      nbformat: 4,
      nbformat_minor: 5,
      metadata: {},
      cells: [{ cell_type: 'code', id: 'c1', metadata: {}, source: 'x', outputs: [{ output_type: 'stream', name: 'stdout', text: 5 }], execution_count: null }],
    });
    const want = thrown(() => measureDialog(readsIpynb(text, 'bad.ipynb'))) as Error;
    expect(want.message).toContain('bad.ipynb');
    for (const level of ['classes', 'total', 'none'] as CountLevel[]) {
      expect((thrown(() => countInput(readsIpynb(text, 'bad.ipynb'), level)) as Error).message).toBe(want.message);
    }
  });
});

describe('the command reports the same figures, whatever it counts', () => {
  const dir = mkdtempSync(join(tmpdir(), 'dlg-counts-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  const run = async (args: string[]): Promise<{ code: number; out: string }> => {
    let out = '';
    const sink = { write: (s: string) => (out += s) };
    const code = await main([...args, '--no-config', '--no-progress'], { stdout: sink, stderr: sink, cwd: dir, readStdin: async () => new Uint8Array() });
    return { code, out };
  };
  writeFileSync(join(dir, 'demo.ipynb'), DEMO);

  it.each([
    [['demo.ipynb'], 'demo-comp.ipynb: written, 15 messages, 5029 → 2198 tokens (56.3% saved), 21 KB → 9 KB\n'],
    [['--mode', 'dialog', 'demo.ipynb'], 'demo-comp.ipynb: written, 15 messages, 5029 → 2479 tokens (50.7% saved), 21 KB → 15 KB\n'],
    [
      ['--strategy', 'micro', 'demo.ipynb'],
      'demo-comp.ipynb: written (micro: 2 tool results cleared), 15 messages, 5029 → 4491 tokens (10.7% saved), 21 KB → 19 KB\n',
    ],
    [['--strategy', 'summary', 'demo.ipynb'], 'demo-comp.ipynb: written (summary of 11 cells), 15 messages, 5029 → 1999 tokens (60.3% saved), 21 KB → 10 KB\n'],
    [
      ['--mode', 'dialog', '--max-tokens', '3000', 'demo.ipynb'],
      'demo-comp.ipynb: written (fit into --max-tokens 3000: latest budgets ×4.36 (3 prompts ×4.76), minimum 1464 tokens), 15 messages, 5029 → 2999 tokens (40.4% saved), 21 KB → 16 KB\n',
    ],
  ])('%j: the text line, the --json totals, and -q writes the same bytes', async (args, line) => {
    rmSync(join(dir, 'demo-comp.ipynb'), { force: true });
    const text = await run(args);
    expect(text).toEqual({ code: 0, out: line });
    const written = readFileSync(join(dir, 'demo-comp.ipynb'));
    rmSync(join(dir, 'demo-comp.ipynb'));
    const json = await run([...args, '--json']);
    const rec = JSON.parse(json.out) as { tokens: { before: { total: number }; after: { total: number } } };
    expect(`${rec.tokens.before.total} → ${rec.tokens.after.total}`).toBe(/(\d+ → \d+) tokens/.exec(line)![1]);
    expect(readFileSync(join(dir, 'demo-comp.ipynb')).equals(written)).toBe(true);
    rmSync(join(dir, 'demo-comp.ipynb'));
    expect(await run([...args, '-q'])).toEqual({ code: 0, out: '' });
    expect(readFileSync(join(dir, 'demo-comp.ipynb')).equals(written)).toBe(true);
  });
  it('a fit note says "nothing cut" when the whole rendering fits, "structure only" at the smallest budget', async () => {
    const note = async (n: number) => /\((fit into [^)]*)\)/.exec((await run(['--check', '--max-tokens', String(n), 'demo.ipynb'])).out)?.[1];
    // (the minimum holds the demo's traceback's exception line, rule 38)
    expect(await note(100_000)).toBe('fit into --max-tokens 100000: nothing cut, minimum 305 tokens');
    expect(await note(305)).toBe('fit into --max-tokens 305: structure only, minimum 305 tokens');
    expect((await run(['--check', '--max-tokens', '304', 'demo.ipynb'])).out).toContain('use --max-tokens 305 or more');
  });

  it('says "% more" when the output holds more tokens than the input, and "none before" for an empty input', async () => {
    const cell = (source: string) => ({ cell_type: 'markdown', id: 'a1b2c3d4', metadata: {}, source: [source] });
    const nb = (cells: unknown[]) => `${JSON.stringify({ cells, metadata: {}, nbformat: 4, nbformat_minor: 5 }, null, 1)}\n`;
    writeFileSync(join(dir, 'tiny.ipynb'), nb([cell('Hi')]));
    // The body `§ Hi §` is 3 tokens against the input's 1: (3 - 1) / 1 = 200% more.
    expect(await run(['tiny.ipynb'])).toEqual({ code: 0, out: 'tiny-comp.ipynb: written, 1 message, 1 → 3 tokens (200.0% more), 179 B → 719 B\n' });
    writeFileSync(join(dir, 'blank.ipynb'), nb([cell('')]));
    expect((await run(['blank.ipynb'])).out).toMatch(/^blank-comp\.ipynb: written, 1 message, 0 → \d+ tokens \(none before\), /);
  });
});

describe('the report line words the change of tokens', () => {
  const line = (before: number, after: number) =>
    reportLine({ output: 'x-comp.ipynb', status: 'written', messages: 3, before: { total: before }, after: { total: after } } as unknown as FileReport);
  it.each([
    [100_000, 100_049, '100000 → 100049 tokens (<0.1% more)'],
    [100_000, 100_050, '100000 → 100050 tokens (0.1% more)'],
    [100_000, 99_990, '100000 → 99990 tokens (<0.1% saved)'],
    [100_000, 100_000, '100000 → 100000 tokens (0.0% saved)'],
    [200, 50, '200 → 50 tokens (75.0% saved)'],
    [0, 0, '0 → 0 tokens (0.0% saved)'],
    [0, 7, '0 → 7 tokens (none before)'],
  ])('%i → %i', (before, after, want) => {
    expect(line(before, after)).toBe(`x-comp.ipynb: written, 3 messages, ${want}`);
  });
});

describe('the native parse path, on strings full of escapes, quotes and digits', () => {
  const piece = fc.constantFrom('\\', '"', '\\\\', '\\"', ':', '0', '12', '-3', '1e5', 'a', ' ', '\n', '\u00e9', '\u2028', '{', '[');
  const str = fc.array(piece, { maxLength: 12 }).map((a) => a.join(''));
  const leaf = fc.oneof(str, fc.integer(), fc.double({ noNaN: true, noDefaultInfinity: true }), fc.boolean(), fc.constant(null));
  const meta = fc.dictionary(str, fc.oneof(leaf, fc.array(leaf, { maxLength: 4 }), fc.dictionary(str, leaf, { maxKeys: 3 })), { maxKeys: 5 });
  it('gives what the lossless parser gives, and the same notebook text', () => {
    fc.assert(
      fc.property(meta, str, fc.integer({ min: 0, max: 2 }), (m, source, indent) => {
        const nb = {
          cells: [{ cell_type: 'code', id: 'c', metadata: m, source, outputs: [], execution_count: 3 }],
          metadata: m,
          nbformat: 4,
          nbformat_minor: 5,
        };
        const text = JSON.stringify(nb, null, indent);
        const fast = readsIpynb(text, 'x.ipynb');
        const slow = readsIpynb(text, 'x.ipynb', { parser: 'lossless' });
        expect(fast.metadata).toEqual(slow.metadata);
        expect(fast.messages[0]!.meta).toEqual(slow.messages[0]!.meta);
        expect(dumpsIpynb(fast)).toBe(dumpsIpynb(slow));
      }),
      fcParams(200),
    );
  });
});

describe('the total line of a run over several inputs', () => {
  const report = (status: string, before: number, after: number | null) =>
    ({
      index: 0,
      path: 'x.ipynb',
      output: 'x-comp.ipynb',
      status,
      before: { total: before },
      after: after === null ? null : { total: after },
    }) as unknown as FileReport;
  it('counts statuses in a fixed order and sums the tokens of the files with a known count', () => {
    const results = [
      { index: 1, path: 'bad.ipynb', error: 'bad.ipynb: not a notebook' },
      report('unchanged', 300, 100),
      { index: 2, path: 'old-comp.ipynb', skipped: 'an output of dlg-compact' },
      report('written', 1000, 250),
      report('would write', 50, null),
      report('written', 700, 150),
    ] as FileResult[];
    expect(totalLine(results)).toBe('6 files: 2 written, 1 unchanged, 1 would write, 1 skipped, 1 failed; 2000 → 500 tokens (75.0% saved)');
  });
  it('leaves out the tokens when no file has a count', () => {
    expect(
      totalLine([
        { index: 0, path: 'a', skipped: 'an output of dlg-compact' },
        { index: 1, path: 'b', error: 'b: gone' },
      ] as FileResult[]),
    ).toBe('2 files: 1 skipped, 1 failed');
  });
});
