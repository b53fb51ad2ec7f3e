/**
 * Running the jobs of `--jobs N` on N threads: this one and N - 1 worker threads (worker.ts).
 * This thread has loaded the library already and decodes the rank table for its own work, so
 * on N cores it works too rather than wait: each worker costs a module load and a warm-up of
 * its own, which on small files is a good part of the work.
 *
 * Every thread takes its next job itself from one list, by a shared counter: no thread waits
 * for another to hand it work (this thread, busy with a file of its own, would answer late),
 * and a thread that is slower (a worker still warming up) simply takes fewer files.
 */
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { FileJob, FileResult } from './job.js';
import type { ProcessHooks } from './process-file.js';

/** The worker thread's module (worker.ts, built next to this one). */
const WORKER = fileURLToPath(new URL('./worker.js', import.meta.url));

/**
 * Files each thread reads and compacts at once: while one waits for the file system, the
 * other's work runs. A file whose output is being written (the temporary file created, flushed
 * to the disk, renamed) no longer counts: each thread holds up to {@link LANES} files, so that
 * the disk's waits, which on a busy disk are longer than a small file's work, never leave it
 * idle, while its memory stays that of two files. Reports still print in input order.
 */
export const IN_FLIGHT = 2;

/** Files a thread holds at once, the ones whose outputs are being written included. */
export const LANES = 6;

/**
 * Process the jobs that `take` hands out (until it gives `undefined`) on this thread, passing
 * each result to `report` in completion order: {@link LANES} lanes, of which at most
 * {@link IN_FLIGHT} read and compact a file at a time (see {@link ProcessHooks}). Between
 * files a lane lets the thread's other events in (a worker's messages).
 */
export async function runLanes(
  take: () => FileJob | undefined,
  report: (r: FileResult) => void,
  process: (job: FileJob, hooks: ProcessHooks) => Promise<FileResult>,
): Promise<void> {
  let working = 0;
  const queue: (() => void)[] = [];
  const enter = async () => {
    while (working >= IN_FLIGHT) await new Promise<void>((go) => queue.push(go));
    working++;
  };
  const leave = () => {
    working--;
    queue.shift()?.();
  };
  const lane = async () => {
    for (;;) {
      await enter();
      const job = take();
      if (job === undefined) {
        leave();
        return;
      }
      let left = false;
      const done = () => {
        if (left) return;
        left = true;
        leave();
      };
      const r = await process(job, { writing: done });
      done();
      report(r);
      await new Promise<void>((go) => setImmediate(go));
    }
  };
  await Promise.all(Array.from({ length: LANES }, lane));
}

/**
 * The shared list of a run, as a worker gets it (its second message, after the rank table):
 * the jobs, and the claims that hand them out. `claims[0]` is the next job to take (each
 * thread adds 1 and takes the job at the old value, until it passes the last); `claims[1 + i]`
 * is the worker that took job `i` (its `worker` number, from 1; 0 for this thread or not taken).
 */
export interface SharedJobs {
  jobs: FileJob[];
  claims: Int32Array;
  worker: number;
}

/** What a worker posts: a job's result, or that it has finished (no job is left to take). */
export type WorkerMessage = { result: FileResult } | { done: true };

/**
 * Take the next job of the shared list for `worker` (0: this thread), or `undefined` when all
 * are taken. The job's index in the list is returned with it.
 */
export function claimJob(shared: Pick<SharedJobs, 'jobs' | 'claims'>, worker: number): number | undefined {
  const i = Atomics.add(shared.claims, 0, 1);
  if (i >= shared.jobs.length) return undefined;
  if (worker !== 0) Atomics.store(shared.claims, 1 + i, worker);
  return i;
}

/**
 * Run jobs on `n` threads (no more than files or than the machine's cores): this one and
 * `n - 1` workers; results arrive through `onResult` in completion order. The workers are
 * `started` ahead (by {@link startWorkers}, while the inputs were planned) or start now;
 * while they load their modules, this thread loads its own (this module imports the library
 * only then) and reads the rank table, whose shared buffer is the first message each worker
 * gets: it adopts it instead of reading its own. The second is the shared list.
 * Jobs that carry their input's bytes (standard input) stay on this thread.
 * A worker that dies while working fails the files it had taken (at most {@link LANES}), at once;
 * one that could not start (its modules did not load) takes none; either way the others go on,
 * and this thread takes what is left. An error thrown by `onResult` stops the run: no job is
 * taken after it, and once the files in hand are done the returned promise rejects with it.
 */
export async function runInWorkers(jobs: FileJob[], n: number, onResult: (r: FileResult) => void, started?: StartedWorkers): Promise<void> {
  const threads = Math.min(n, jobs.length, availableParallelism());
  const pool = started ?? startWorkers(threads);
  const use = pool.threads.slice(0, Math.max(0, threads - 1));
  for (const t of pool.threads.slice(use.length)) void t.worker.terminate();
  const [{ processFile }, { shareTable }] = await Promise.all([import('./process-file.js'), import('../tokens/ranks.js')]);
  const table = shareTable();
  const local = jobs.filter((j) => j.bytes !== undefined);
  const list = jobs.filter((j) => j.bytes === undefined);
  const claims = new Int32Array(new SharedArrayBuffer(4 * (1 + list.length)));
  const reported = new Set<number>();
  // The first error `onResult` threw (a report stream that failed): no job is taken after it,
  // the files in hand finish (their writes are whole or nothing), nothing more is reported,
  // and the run then fails with it, as a run on one thread does.
  let broke: { error: unknown } | undefined;
  const report = (r: FileResult) => {
    if (broke !== undefined || reported.has(r.index)) return;
    reported.add(r.index);
    try {
      onResult(r);
    } catch (error) {
      broke = { error };
      Atomics.store(claims, 0, list.length);
      local.length = 0;
    }
  };
  // Why each worker (by number, from 1) ended before it said it was done.
  const died = new Map<number, string>();
  // The jobs worker `k` took and never reported: it died on them. (Running them here might
  // take this thread down too.)
  const failTaken = (k: number | undefined) => {
    for (const [i, job] of list.entries()) {
      if (reported.has(job.index)) continue;
      const by = Atomics.load(claims, 1 + i);
      if (k !== undefined && by !== k) continue;
      const why = died.get(by) ?? [...died.values()][0] ?? 'it stopped';
      report({ index: job.index, path: job.path, error: `${job.name}: worker failed: ${why}` });
    }
  };
  const lane = ({ worker, gone }: StartedWorker, k: number) =>
    new Promise<void>((done) => {
      let finished = false;
      const finish = (why?: string) => {
        if (finished) return;
        finished = true;
        if (why !== undefined) {
          died.set(k, why);
          failTaken(k);
        }
        void worker.terminate().then(
          () => done(),
          () => done(),
        );
      };
      worker.on('message', (m: WorkerMessage) => {
        if ('result' in m) report(m.result);
        else if ('done' in m) finish();
      });
      worker.on('error', (err) => finish(err.message));
      worker.on('exit', (code) => finish(`exited with code ${code}`));
      // A worker that failed before this lane listened takes no job.
      if (gone.why !== undefined) finish(gone.why);
      else {
        worker.postMessage({ table });
        worker.postMessage({ jobs: list, claims, worker: k } satisfies SharedJobs);
      }
    });
  // This thread's lanes: first the jobs that stay here, then the shared list.
  const take = () => {
    if (local.length > 0) return local.shift();
    const i = claimJob({ jobs: list, claims }, 0);
    return i === undefined ? undefined : list[i];
  };
  await Promise.all([...use.map((t, k) => lane(t, k + 1)), runLanes(take, report, processFile)]);
  if (broke !== undefined) throw broke.error;
  // Left unreported after every lane: taken by a worker that died between taking a job and
  // saying whose it was.
  failTaken(undefined);
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
