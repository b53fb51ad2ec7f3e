/**
 * `dlg-compact` for Node: the curated core (core.ts) plus reading and writing notebooks on
 * disk. Browser bundles resolve the package to `core.js` instead (package.json `exports`).
 */
export * from './core.js';
export { readIpynb, writeIpynb } from './notebook/files.js';
