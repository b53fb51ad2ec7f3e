/**
 * `dlg-compact` for Node: the curated core (core.ts) plus reading and writing notebooks on
 * disk. Browser bundles resolve the package to `core.js` instead (package.json `exports`).
 */
import { useNodeHost } from './host/node.js';

export * from './core.js';
export { FileAccessError, readIpynb, writeIpynb } from './notebook/files.js';

// Node's zlib, SHA-256 and the rank table the build wrote: the same results, sooner.
useNodeHost();
