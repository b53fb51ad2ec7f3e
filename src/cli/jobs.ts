/**
 * Running the jobs of `--jobs N` on N threads: this one and N - 1 worker threads (worker.ts).
 * This thread has loaded the library already and decodes the rank table for its own work, so
 * on N cores it works too rather than wait: each worker costs a module load and a warm-up of
 * its own, which on small files is a good part of the work.
 */
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { FileJob, FileResult } from './job.js';

/** The worker thread's module (worker.ts, built next to this one). */
const WORKER = fileURLToPath(new URL('./worker.js', import.meta.url));

/**
 * Jobs a worker holds at once: the one it works on and the next, so that it never waits for
 * this thread (busy with a file of its own) to hand it more.
 */
const IN_FLIGHT = 2;

/**
 * Files this thread works on at once: while one waits for the disk (reading, the flush and
 * rename of an atomic write), the other's work runs. Reports still print in input order.
 */
const OWN_IN_FLIGHT = 2;

/**
 * Run jobs on `n` threads (no more than files or than the machine's cores): this one and
 * `n - 1` workers; results arrive through `onResult` in completion order. The workers are
 * `started` ahead (by {@link startWorkers}, while the inputs were planned) or start now;
 * while they load their modules, this thread loads its own (this module imports the library
 * only then) and reads the rank table, whose shared buffer is the first message each worker
 * gets: it adopts it instead of reading its own.
 * A worker that dies while working fails the files it held (at most {@link IN_FLIGHT}); one
 * that could not start (it never said it was ready) hands them to this thread; either way the
 * others go on, and this thread takes what is left.
 */
export async function runInWorkers(jobs: FileJob[], n: number, onResult: (r: FileResult) => void, started?: StartedWorkers): Promise<void> {
  let next = 0;
  const threads = Math.min(n, jobs.length, availableParallelism());
  const pool = started ?? startWorkers(threads);
  const use = pool.threads.slice(0, Math.max(0, threads - 1));
  for (const t of pool.threads.slice(use.length)) void t.worker.terminate();
  const [{ processFile }, { shareTable }] = await Promise.all([import('./process-file.js'), import('../tokens/ranks.js')]);
  const table = shareTable();
  for (const t of use) t.worker.postMessage({ table });
  const lane = ({ worker, gone }: StartedWorker) =>
    new Promise<void>((done) => {
      const held = new Map<number, FileJob>();
      let finished = false;
      let ready = false; // the worker has loaded its modules (worker.ts says so first)
      const finish = () => {
        if (finished) return;
        finished = true;
        void worker.terminate().then(
          () => done(),
          () => done(),
        );
      };
      const feed = () => {
        while (!finished && held.size < IN_FLIGHT && next < jobs.length) {
          const job = jobs[next++]!;
          held.set(job.index, job);
          worker.postMessage(job);
        }
        if (held.size === 0) finish();
      };
      const fail = (why: string) => {
        if (finished) return;
        const back = [...held.values()];
        held.clear();
        if (ready) {
          // It died on these files: fail them (running them here might take this thread down too).
          for (const job of back) onResult({ index: job.index, path: job.path, error: `${job.name}: worker failed: ${why}` });
          finish();
          return;
        }
        // It never started (its modules did not load): this thread does the files it was given.
        finished = true;
        void worker.terminate().catch(() => undefined);
        void (async () => {
          for (const job of back) onResult(await processFile(job));
        })().then(done, done);
      };
      worker.on('message', (r: FileResult | { ready: true }) => {
        if ('ready' in r) {
          ready = true;
          return;
        }
        held.delete(r.index);
        onResult(r);
        feed();
      });
      worker.on('error', (err) => fail(err.message));
      worker.on('exit', (code) => fail(`exited with code ${code}`));
      // A worker that failed before this lane listened: its jobs go to the other threads.
      if (gone.why !== undefined) finish();
      else feed();
    });
  // This thread's lanes: OWN_IN_FLIGHT files at a time (one's work runs while the other waits
  // for the disk), letting the workers' messages in between.
  const own = async () => {
    while (next < jobs.length) {
      onResult(await processFile(jobs[next++]!));
      await new Promise<void>((go) => setImmediate(go));
    }
  };
  const owns = Array.from({ length: OWN_IN_FLIGHT }, own);
  await Promise.all([...use.map(lane), ...owns]);
}

/** A worker thread started by {@link startWorkers}, and why it ended if it did before it was used. */
export interface StartedWorker {
  worker: Worker;
  gone: { why?: string };
}

/** Worker threads started ahead of the jobs (see {@link startWorkers}). */
export interface StartedWorkers {
  threads: StartedWorker[];
  /** Stop them all (when the run turns out to need none, or fails while planning). */
  stop(): Promise<void>;
}

/**
 * Start the `n - 1` worker threads of `--jobs n` (no more than the machine's cores) before the
 * jobs are known, so that they load their modules while this thread plans the inputs;
 * {@link runInWorkers} uses as many as the jobs need and stops the others.
 */
export function startWorkers(n: number): StartedWorkers {
  const count = Math.max(0, Math.min(n, availableParallelism()) - 1);
  const threads = Array.from({ length: count }, (): StartedWorker => {
    const worker = new Worker(WORKER);
    const gone: { why?: string } = {};
    // Until a lane listens: an error must not be unhandled, and an early exit is remembered.
    worker.once('error', (err) => {
      gone.why ??= err.message;
    });
    worker.once('exit', (code) => {
      gone.why ??= `exited with code ${code}`;
    });
    return { worker, gone };
  });
  return {
    threads,
    async stop() {
      await Promise.all(threads.map((t) => t.worker.terminate().catch(() => undefined)));
    },
  };
}
