/**
 * Entry of a worker thread of `--jobs N` (started by jobs.ts): processes each job posted to it
 * and posts back its result.
 */
import { parentPort } from 'node:worker_threads';
import type { FileJob } from './job.js';
import { processFile } from './process-file.js';

if (parentPort === null) throw new Error('dlg-compact: worker.js runs only as a worker thread');
const port = parentPort;
port.on('message', (job: FileJob) => {
  void processFile(job).then((r) => port.postMessage(r));
});
