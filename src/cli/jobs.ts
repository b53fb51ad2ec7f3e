/**
 * Running the jobs of `--jobs N` in worker threads (worker.ts), with a fallback to this thread
 * when every worker has died.
 */
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { FileJob, FileResult } from './job.js';
import { processFile } from './process-file.js';

/** The worker thread's module (worker.ts, built next to this one). */
const WORKER = fileURLToPath(new URL('./worker.js', import.meta.url));

/**
 * Run jobs in `n` worker threads (no more threads than files or than the machine's cores,
 * since each loads the tokenizer); results arrive through `onResult` in completion order. A
 * worker that dies fails its current file; jobs left when every worker has died run in this
 * thread.
 */
export async function runInWorkers(jobs: FileJob[], n: number, onResult: (r: FileResult) => void): Promise<void> {
  let next = 0;
  const lane = () =>
    new Promise<void>((done) => {
      const worker = new Worker(WORKER);
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
  await Promise.all(Array.from({ length: Math.min(n, jobs.length, availableParallelism()) }, lane));
  while (next < jobs.length) onResult(await processFile(jobs[next++]));
}
