/**
 * The command's side of safe compaction, run in-process (`main(argv, io)`): `--keep-tools`
 * protects tools from micro-compaction, `--min-saving` sets the summary's acceptance bar, and a
 * summary still over `--max-tokens` is reported `over-budget` (text line and `--json`).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { main } from '../src/cli/main.js';
import { fmt2hist } from '../src/chat/index.js';
import { readsIpynb } from '../src/notebook/index.js';

const SEP = '\n\n##### 🤖Reply🤖<!-- SOLVEIT_SEPARATOR_7f3a9b2c -->\n\n';
const block = (rec: Record<string, unknown>): string => '```json {.tool}\n' + JSON.stringify(rec, null, 2) + '\n```';

let dir = '';
afterEach(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = '';
});

async function run(args: string[], cells: unknown[]): Promise<{ code: number; out: string; err: string; dir: string }> {
  dir = mkdtempSync(join(tmpdir(), 'dlg-safe-'));
  writeFileSync(join(dir, 'a.ipynb'), JSON.stringify({ nbformat: 4, nbformat_minor: 5, metadata: {}, cells }));
  let out = '';
  let err = '';
  const code = await main([...args, 'a.ipynb'], {
    stdout: { write: (s: string) => (out += s) },
    stderr: { write: (s: string) => (err += s) },
    cwd: dir,
    env: {},
    readStdin: async () => new Uint8Array(),
  });
  return { code, out, err, dir };
}

const prompt = (id: string, reply: string) => ({ cell_type: 'markdown', id, metadata: { solveit_ai: true }, source: `Question ${id}?` + SEP + reply });

describe('--keep-tools', () => {
  const cells = [
    prompt('p1', ['memory', 'bash', 'x', 'y', 'z'].map((name, i) => block({ id: `u${i}`, name, args: { i }, result: 'r'.repeat(2000) })).join('\n\n')),
  ];

  it('protects the named tools; the others get the sized placeholder', async () => {
    const r = await run(['--strategy', 'micro', '--keep-tools', 'memory,load_dialog', '--json'], cells);
    expect(r.err).toBe('');
    expect(r.code).toBe(0);
    const d = readsIpynb(readFileSync(join(r.dir, 'a-comp.ipynb'), 'utf8'));
    const results = fmt2hist(d.messages[0]!.reply).flatMap((m) => m.content.flatMap((p) => (p.type === 'tool_result' ? [p.text.slice(0, 50)] : [])));
    expect(results).toEqual(['r'.repeat(50), '[Previous: used bash · 2.0 KB cleared]', 'r'.repeat(50), 'r'.repeat(50), 'r'.repeat(50)]);
  });

  it('needs --strategy micro and names', async () => {
    expect((await run(['--keep-tools', 'memory'], cells)).code).toBe(2);
    expect((await run(['--strategy', 'summary', '--keep-tools', 'memory'], cells)).code).toBe(2);
    expect((await run(['--strategy', 'micro', '--keep-tools', 'a,,b'], cells)).code).toBe(2);
  });
});

describe('--min-saving and over-budget', () => {
  const turns = Array.from({ length: 6 }, (_, i) => prompt(`p${i}`, `Answer ${i}. ` + 'detail '.repeat(300)));

  it('a summary still over --max-tokens is written and reported over-budget', async () => {
    const r = await run(['--strategy', 'summary', '--max-tokens', '200', '--keep-recent', '1', '--json'], turns);
    expect(r.err).toBe('');
    const rec = JSON.parse(r.out.trim().split('\n')[0]!) as { status: string };
    expect(rec.status).toBe('over-budget');
    const t = await run(['--strategy', 'summary', '--max-tokens', '200', '--keep-recent', '1'], turns);
    expect(t.out.startsWith('a-comp.ipynb: over-budget (summary of 5 cells)')).toBe(true);
  });

  it('--min-saving 99% refuses a summary that saves less (not-shrinking: the dialog written as it was)', async () => {
    const r = await run(['--strategy', 'summary', '--min-saving', '99%', '--json'], turns);
    const rec = JSON.parse(r.out.trim().split('\n')[0]!) as { status: string; reason: string };
    expect([rec.status, rec.reason]).toEqual(['written', 'not-shrinking']);
    const cells = (JSON.parse(readFileSync(join(r.dir, 'a-comp.ipynb'), 'utf8')) as { cells: { id: string; source: string | string[] }[] }).cells;
    expect(cells.map((c) => [c.id, Array.isArray(c.source) ? c.source.join('') : c.source])).toEqual(turns.map((t) => [t.id, t.source]));
  });

  it.each(['1', '100%', '-0.1', 'x'])('--min-saving %s is a usage error', async (v) => {
    expect((await run(['--strategy', 'summary', '--min-saving', v], turns)).code).toBe(2);
  });
});
