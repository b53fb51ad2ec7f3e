/**
 * `dlg-compact` for Node: the curated core (core.ts) plus reading and writing notebooks on
 * disk. Browser bundles resolve the package to `core.js` instead (package.json `exports`).
 */
import { inflateRawSync } from 'node:zlib';
import { setInflateRaw } from './tokens/ranks.js';

export * from './core.js';
export { readIpynb, writeIpynb } from './notebook/files.js';

// Node's zlib inflates the rank table far faster than the tokenizer's own decoder does cold.
setInflateRaw((src) => inflateRawSync(src));
