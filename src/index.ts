/**
 * dlg-compact for Node: the browser-safe core plus reading and writing notebooks on disk and
 * the Node transcript writer of auto-compaction. Browser bundles resolve the package to
 * `core.js` instead (see package.json `exports`).
 */
export * from './core.js';
export * from './notebook/files.js';
export * from './strategies/transcript-file.js';
