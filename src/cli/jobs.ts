/**
 * Running the jobs of `--jobs N` in worker threads (worker.ts), with a fallback to this thread
 * when every worker has died.
 */
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import { shareTable } from '../tokens/ranks.js';
import type { FileJob, FileResult } from './job.js';
import { processFile } from './process-file.js';

/** The worker thread's module (worker.ts, built next to this one). */
const WORKER = fileURLToPath(new URL('./worker.js', import.meta.url));

/**
 * Run jobs in `n` worker threads (no more threads than files or than the machine's cores);
 * results arrive through `onResult` in completion order. The rank table is decoded once, here,
 * while the workers load their modules, and its shared buffer is the first message each worker
 * gets: it adopts it instead of decoding its own.
 * A worker that dies fails its current file; jobs left when every worker has died run in this
 * thread.
 */
export async function runInWorkers(jobs: FileJob[], n: number, onResult: (r: FileResult) => void): Promise<void> {
  let next = 0;
  const workers = Array.from({ length: Math.min(n, jobs.length, availableParallelism()) }, () => new Worker(WORKER));
  const table = shareTable();
  for (const w of workers) w.postMessage({ table });
  const lane = (worker: Worker) =>
    new Promise<void>((done) => {
      let current: FileJob | undefined;
      let finished = false;
      const finish = () => {
        if (finished) return;
        finished = true;
        void worker.terminate().then(
          () => done(),
          () => done(),
        );
      };
      const feed = () => {
        if (next >= jobs.length) {
          current = undefined;
          finish();
          return;
        }
        current = jobs[next++];
        worker.postMessage(current);
      };
      const fail = (why: string) => {
        if (current) onResult({ index: current.index, path: current.path, error: `${current.name}: worker failed: ${why}` });
        current = undefined;
        finish();
      };
      worker.on('message', (r: FileResult) => {
        current = undefined;
        onResult(r);
        feed();
      });
      worker.on('error', (err) => fail(err.message));
      worker.on('exit', (code) => fail(`exited with code ${code}`));
      feed();
    });
  await Promise.all(workers.map(lane));
  while (next < jobs.length) onResult(await processFile(jobs[next++]));
}
