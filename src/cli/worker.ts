/**
 * Entry of a worker thread of `--jobs N` (started by jobs.ts): says it is ready once loaded
 * (`{ ready: true }`), adopts the rank table the main thread shares (its first message,
 * `{ table }`), then processes each job posted to it and posts back its result.
 */
import { parentPort } from 'node:worker_threads';
import { useNodeHost } from '../host/node.js';
import { adoptTable } from '../tokens/ranks.js';
import type { FileJob } from './job.js';
import { processFile } from './process-file.js';

if (parentPort === null) throw new Error('dlg-compact: worker.js runs only as a worker thread');
const port = parentPort;
useNodeHost();
// Loaded: from here on a failure is one of the files', not the worker's own.
port.postMessage({ ready: true });
port.on('message', (msg: FileJob | { table: ArrayBufferLike }) => {
  if ('table' in msg) {
    adoptTable(msg.table);
    return;
  }
  void processFile(msg).then((r) => port.postMessage(r));
});
