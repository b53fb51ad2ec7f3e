/**
 * Entry of a worker thread of `--jobs N` (started by jobs.ts): adopts the rank table the main
 * thread shares (its first message, `{ table }`), then takes jobs from the shared list (the
 * second, {@link SharedJobs}) until none is left, as this thread's lanes do ({@link runLanes}),
 * posting back each result (`{ result }`) and, at the end, `{ done: true }`.
 */
import { parentPort } from 'node:worker_threads';
import { useNodeHost } from '../host/node.js';
import { adoptTable } from '../tokens/ranks.js';
import { claimJob, runLanes, type SharedJobs, type WorkerMessage } from './jobs.js';
import { processFile } from './process-file.js';

if (parentPort === null) throw new Error('dlg-compact: worker.js runs only as a worker thread');
const port = parentPort;
useNodeHost();
const post = (m: WorkerMessage) => port.postMessage(m);

port.on('message', (msg: SharedJobs | { table: ArrayBufferLike }) => {
  if ('table' in msg) {
    adoptTable(msg.table);
    return;
  }
  const take = () => {
    const i = claimJob(msg, msg.worker);
    return i === undefined ? undefined : msg.jobs[i];
  };
  void runLanes(take, (result) => post({ result }), processFile).then(() => post({ done: true }));
});
