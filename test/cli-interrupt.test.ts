/**
 * Runs that stop early. The command interrupted while it writes (Ctrl-C, SIGTERM): no
 * temporary file is left beside the outputs, on this thread or a worker's, the inputs are
 * untouched, and the signal ends the process as it would any other program. The writes are
 * held open by the test hook `DLG_COMPACT_TEST_HOLD_WRITE_MS` (src/notebook/files.ts), so the
 * signal surely comes while a temporary file exists. And `main()` given a report stream that
 * throws: the run fails with exit status 1 and says why, with `--jobs` as without.
 */
import { spawn, spawnSync } from 'node:child_process';
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CLI, cliEnv, scratchFolders } from './built-cli.js';
import { pathToFileURL } from 'node:url';
import { ROOT } from './support.js';

const DEMO = readFileSync(join(ROOT, 'notebooks', 'demo.ipynb'));
const dir = scratchFolders('dlg-cli-int-');
const TEMP = /\.dlg-compact-\d+-[0-9a-f]{8}\.tmp$/;

/**
 * Run the command on `args` in `cwd`, wait until `temps` temporary files exist there (10 s at
 * most), send `signal`, and give how the process ended and what the folder held just before
 * the signal.
 */
function interrupt(
  args: string[],
  cwd: string,
  temps: number,
  signal: NodeJS.Signals,
): Promise<{ code: number | null; signal: string | null; seen: string[] }> {
  const child = spawn(process.execPath, [CLI, '--no-progress', ...args], {
    cwd,
    env: { ...cliEnv(), DLG_COMPACT_TEST_HOLD_WRITE_MS: '20000' },
    stdio: 'ignore',
  });
  return new Promise((done, fail) => {
    const start = Date.now();
    let seen: string[] = [];
    const poll = setInterval(() => {
      seen = readdirSync(cwd).filter((n) => TEMP.test(n));
      if (seen.length >= temps) {
        clearInterval(poll);
        child.kill(signal);
      } else if (Date.now() - start > 10_000) {
        clearInterval(poll);
        child.kill('SIGKILL');
        fail(new Error(`no ${temps} temporary files within 10 s: ${readdirSync(cwd).join(', ')}`));
      }
    }, 10);
    child.on('exit', (code, sig) => done({ code, signal: sig, seen }));
  });
}

describe('an interrupted run leaves nothing behind', () => {
  it('Ctrl-C while one output is half written: the temporary file goes, the signal ends the process', async () => {
    const d = dir({ 'a.ipynb': DEMO });
    const r = await interrupt(['a.ipynb'], d, 1, 'SIGINT');
    expect(r.seen.length).toBe(1);
    expect(r.seen[0]).toMatch(/^\.a-comp\.ipynb\.dlg-compact-/);
    expect(r.signal).toBe('SIGINT');
    expect(readdirSync(d)).toEqual(['a.ipynb']);
    expect(readFileSync(join(d, 'a.ipynb')).equals(DEMO)).toBe(true);
  }, 30_000);

  it('SIGTERM with --jobs 2: the temporary files of both threads go', async () => {
    const d = dir({ 'a.ipynb': DEMO, 'b.ipynb': DEMO });
    const r = await interrupt(['--jobs', '2', 'a.ipynb', 'b.ipynb'], d, 2, 'SIGTERM');
    expect(r.seen.sort().map((n) => n.slice(0, 15))).toEqual(['.a-comp.ipynb.d', '.b-comp.ipynb.d']);
    expect(r.signal).toBe('SIGTERM');
    expect(readdirSync(d).sort()).toEqual(['a.ipynb', 'b.ipynb']);
  }, 30_000);
});

describe('a report stream that throws', () => {
  // A script calling the built main() with a standard output whose second write throws; it
  // prints what main() returned (or threw) and what reached standard error, as JSON.
  const script = `
const { main } = await import(${JSON.stringify(pathToFileURL(join(ROOT, 'dist', 'cli', 'main.js')).href)});
let writes = 0;
let err = '';
const io = {
  cwd: process.cwd(),
  readStdin: async () => new Uint8Array(),
  stdout: { isTTY: false, write() { if (++writes >= 2) throw new Error('stdout broke'); return true; } },
  stderr: { isTTY: false, write(s) { err += s; return true; } },
};
let outcome;
try { outcome = { code: await main(process.argv.slice(2), io) }; } catch (e) { outcome = { threw: String(e) }; }
process.stdout.write(JSON.stringify({ ...outcome, err }));
`;

  it('fails the run with status 1 and says why, on one thread and with --jobs 2', () => {
    const names = Array.from({ length: 8 }, (_, i) => `n${i}.ipynb`);
    for (const jobs of ['1', '2']) {
      const d = dir(Object.fromEntries([...names.map((n) => [n, DEMO] as const), ['run.mjs', script]]));
      const r = spawnSync(process.execPath, ['run.mjs', '--jobs', jobs, ...names], { cwd: d, encoding: 'utf8', env: cliEnv(), timeout: 60_000 });
      expect(r.status).toBe(0); // the script's own process: it did not crash
      expect(JSON.parse(r.stdout)).toEqual({ code: 1, err: 'dlg-compact: unexpected error: stdout broke\n' });
      // What was written is whole: every output is a notebook, and no temporary file is left.
      const left = readdirSync(d).filter((n) => !names.includes(n) && n !== 'run.mjs');
      expect(left.every((n) => /^n\d-comp\.ipynb$/.test(n))).toBe(true);
      for (const n of left) expect(JSON.parse(readFileSync(join(d, n), 'utf8')).nbformat).toBe(4);
    }
  }, 60_000);
});
