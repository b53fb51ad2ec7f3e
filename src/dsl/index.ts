/**
 * `dlg-compact/dsl`: the compact DSL (SPEC §3–§6): renderers of canonical messages under token
 * budgets, reply compaction, and continuation documents. See README.md in this folder.
 */
export * from './render.js';
export * from './compact-reply.js';
export * from './continuation.js';
