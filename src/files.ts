/**
 * `dlg-compact/files` (Node only): notebooks on disk — atomic reads and writes, write-if-changed,
 * the one description of file-system errors — and the on-disk transcript writer of
 * auto-compaction.
 */
export * from './notebook/files.js';
export * from './strategies/transcript-file.js';
