/**
 * How `--jobs N` shares out the files (src/cli/jobs.ts): the shared list and its claims, the
 * lanes of one thread (how many files it reads and compacts at once, how many it holds while
 * their outputs are written), and what happens to the files of a worker that dies or never
 * loads. The command's own runs with --jobs are in cli.test.ts.
 */
import { spawn, spawnSync } from 'node:child_process';
import { copyFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { afterAll, describe, expect, it } from 'vitest';
import { IN_FLIGHT, LANES, claimJob, runInWorkers, runLanes, type StartedWorkers } from '../src/cli/jobs.js';
import type { FileJob, FileResult } from '../src/cli/job.js';
import { processFile } from '../src/cli/process-file.js';
import { ROOT } from './support.js';

const DEMO = join(ROOT, 'notebooks', 'demo.ipynb');
const made: string[] = [];
const tempDir = () => {
  const d = mkdtempSync(join(tmpdir(), 'dlg-cli-jobs-'));
  made.push(d);
  return d;
};
afterAll(() => {
  for (const d of made) rmSync(d, { recursive: true, force: true });
});

/** A `--check` job of a copy of the demo named `name` in `dir` (nothing is written). */
function demoJob(dir: string, index: number, name = `n${index}.ipynb`): FileJob {
  copyFileSync(DEMO, join(dir, name));
  const output = name.replace(/\.ipynb$/, '-comp.ipynb');
  return {
    index,
    path: name,
    source: join(dir, name),
    name,
    output,
    target: join(dir, output),
    mode: 'flat',
    to: 'ipynb',
    check: true,
    derived: true,
    policy: {},
    strategy: 'dsl',
    counts: 'none',
  };
}

const statusOf = (r: FileResult) => ('error' in r ? `error: ${r.error}` : 'skipped' in r ? 'skipped' : r.status);

describe('the shared list of --jobs', () => {
  it('claims hand out each job once, in order, and record which worker took it', () => {
    const claims = new Int32Array(new SharedArrayBuffer(4 * 4));
    const shared = { jobs: [0, 1, 2].map((i) => ({ index: i }) as FileJob), claims };
    expect([claimJob(shared, 2), claimJob(shared, 0), claimJob(shared, 1), claimJob(shared, 1), claimJob(shared, 0)]).toEqual([0, 1, 2, undefined, undefined]);
    expect([...claims.subarray(1)]).toEqual([2, 0, 1]);
  });

  it("one thread's lanes: at most two files read and compacted at once, six held while outputs are written", async () => {
    expect([IN_FLIGHT, LANES]).toEqual([2, 6]);
    let working = 0;
    let held = 0;
    const most = { working: 0, held: 0 };
    const order: number[] = [];
    let next = 0;
    const take = () => (next < 20 ? ({ index: next++, path: `f${next}` } as FileJob) : undefined);
    const tick = () => new Promise<void>((go) => setImmediate(go));
    const fake = async (job: FileJob, hooks: { writing?: () => void }): Promise<FileResult> => {
      held++;
      working++;
      most.held = Math.max(most.held, held);
      most.working = Math.max(most.working, working);
      await tick();
      working--;
      // Every third job fails before it writes: it never says `writing`.
      if (job.index % 3 !== 2) hooks.writing?.();
      await new Promise<void>((go) => setTimeout(go, 5));
      held--;
      return { index: job.index, path: job.path, skipped: 'test' };
    };
    await runLanes(take, (r) => order.push(r.index), fake);
    expect(most).toEqual({ working: 2, held: 6 });
    expect([...order].sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i));
  });
});

describe.skipIf(availableParallelism() < 2)('--jobs 2 on this thread and one worker', () => {
  /** `started` for runInWorkers: one worker running `code` (CommonJS) instead of worker.js. */
  const fakeWorker = (code: string): StartedWorkers => {
    const worker = new Worker(code, { eval: true });
    const gone: { why?: string } = {};
    worker.once('error', (e) => {
      gone.why ??= e.message;
    });
    worker.once('exit', (c) => {
      gone.why ??= `exited with code ${c}`;
    });
    return { threads: [{ worker, gone }], stop: async () => void (await worker.terminate()) };
  };

  it('a worker that dies fails the one file it took; this thread does all the others', async () => {
    const dir = tempDir();
    const jobs = Array.from({ length: 10 }, (_, i) => demoJob(dir, i));
    // Takes one job from the shared list, as worker.js does, and dies on it.
    const started = fakeWorker(`
      const { parentPort } = require('node:worker_threads');
      parentPort.on('message', (m) => {
        if (!m.claims) return;
        const i = Atomics.add(m.claims, 0, 1);
        Atomics.store(m.claims, 1 + i, m.worker);
        process.exit(3);
      });`);
    const results: FileResult[] = [];
    await runInWorkers(jobs, 2, (r) => results.push(r), started);
    expect(results.length).toBe(10);
    const failed = results.filter((r) => 'error' in r);
    expect(failed.length).toBe(1);
    const lost = failed[0]!;
    expect(lost).toEqual({ index: lost.index, path: `n${lost.index}.ipynb`, error: `n${lost.index}.ipynb: worker failed: exited with code 3` });
    expect(results.filter((r) => r !== lost).map(statusOf)).toEqual(Array(9).fill('would write'));
  });

  it('a worker that cannot load takes no file: this thread does them all', async () => {
    const dir = tempDir();
    const jobs = Array.from({ length: 4 }, (_, i) => demoJob(dir, i));
    const started = fakeWorker(`throw new Error('cannot load');`);
    const results: FileResult[] = [];
    await runInWorkers(jobs, 2, (r) => results.push(r), started);
    expect(results.map((r) => r.index).sort()).toEqual([0, 1, 2, 3]);
    expect(results.map(statusOf)).toEqual(Array(4).fill('would write'));
  });
});

describe('reading an input', () => {
  it('a pipe is read whole, its writer coming late, as a regular file is', async () => {
    const dir = tempDir();
    const job = demoJob(dir, 0, 'file.ipynb');
    const pipe = join(dir, 'pipe.ipynb');
    expect(spawnSync('mkfifo', [pipe]).status).toBe(0);
    const writer = spawn('sh', ['-c', `sleep 0.3; cat "${DEMO}" > "${pipe}"`]);
    const written = new Promise((done) => writer.on('close', done));
    const viaPipe = await processFile({ ...job, path: 'pipe.ipynb', name: 'pipe.ipynb', source: pipe });
    await written;
    const plain = await processFile(job);
    expect(statusOf(viaPipe)).toBe('would write');
    expect({ ...viaPipe, path: 'file.ipynb' }).toEqual(plain);
    expect('bytes' in plain && plain.bytes?.before).toBe(readFileSync(DEMO).length);
  });
});
