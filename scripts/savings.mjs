// Token savings on the conformance dialogs, as a Markdown table for the README.
//
//   npm run build && node scripts/savings.mjs [path/to/shared/conformance/dialogs]
//
// For every dialog in manifest.json: prompts, the tokens of the raw .ipynb text (what reading
// the file costs; the manifest's input_tokens), tokens before (measureDialog: what the model reads
// of the non-skipped cells — text, replies as written, code outputs' AI views — in o200k_base
// tokens, the count the summary trigger uses), tokens of the flat document (dlg2compact,
// default policy), tokens of the dialog-mode compaction (compactDialog, measured like the
// input), the savings of both forms relative to "tokens before", and the retention of the flat
// document as the command writes it (the mean over the fact classes the dialog has of the share
// kept, as scripts/retention.mjs measures it). The last row totals the columns (retention: the
// mean over the dialogs). Reads the built library in dist/, so run `npm run build` first.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const dir = process.argv[2] ? resolve(process.argv[2]) : join(process.env.DLG_SHARED_DIR ?? join(root, '..', 'shared'), 'conformance', 'dialogs');

const { readsIpynbBytes } = await import(join(root, 'dist', 'notebook', 'index.js'));
const { measureDialog, measureFlat, compactDialog } = await import(join(root, 'dist', 'dialog', 'index.js'));
const { lenToks } = await import(join(root, 'dist', 'tokens', 'index.js'));
const { flatDocument } = await import(join(root, 'dist', 'notebook', 'index.js'));
const { fmt2hist } = await import(join(root, 'dist', 'chat', 'index.js'));
const { CLASSES, facts, retained, readManifest } = await import('./facts.mjs');

/** Mean over the fact classes the dialog has of the share the flat document keeps (scripts/retention.mjs). */
function retention(d, file) {
  const r = retained(facts(d, fmt2hist), flatDocument(d, { source: file }));
  const shares = CLASSES.filter((c) => r[c] !== undefined).map((c) => r[c]);
  return shares.length ? shares.reduce((a, b) => a + b, 0) / shares.length : 1;
}

const manifest = readManifest(dir, 'savings');

const pct = (before, after) => {
  if (before === 0) return '0.0%';
  const p = (((before - after) / before) * 100).toFixed(1);
  return `${p === '-0.0' ? '0.0' : p}%`;
};
const num = (n) => n.toLocaleString('en-US');

const rows = [];
const total = { prompts: 0, file: 0, before: 0, flat: 0, dialog: 0, kept: 0 };
for (const { name } of manifest) {
  const file = `${name}.ipynb`;
  const bytes = readFileSync(join(dir, file));
  const fileToks = lenToks(bytes.toString('utf8'));
  const dlg = readsIpynbBytes(bytes, file);
  const before = measureDialog(dlg);
  const flat = measureFlat(dlg).tokens.total;
  const kept = retention(dlg, file);
  total.kept += kept;
  // compactDialog rewrites prompts in place, so it runs last on this dialog.
  const dialog = measureDialog(compactDialog(dlg)).tokens.total;
  rows.push([
    name,
    num(before.prompts),
    num(fileToks),
    num(before.tokens.total),
    num(flat),
    num(dialog),
    pct(before.tokens.total, flat),
    pct(before.tokens.total, dialog),
    kept.toFixed(2),
  ]);
  total.prompts += before.prompts;
  total.file += fileToks;
  total.before += before.tokens.total;
  total.flat += flat;
  total.dialog += dialog;
}
rows.push(
  [
    '**total**',
    num(total.prompts),
    num(total.file),
    num(total.before),
    num(total.flat),
    num(total.dialog),
    pct(total.before, total.flat),
    pct(total.before, total.dialog),
    (total.kept / manifest.length).toFixed(2),
  ].map((c, i) => (i === 0 ? c : `**${c}**`)),
);

const head = ['dialog', 'prompts', 'file tokens', 'tokens before', 'flat tokens', 'dialog-mode tokens', 'flat saving', 'dialog-mode saving', 'flat retention'];
console.log(`| ${head.join(' | ')} |`);
console.log(`|${head.map((_, i) => (i === 0 ? ':---' : '---:')).join('|')}|`);
for (const r of rows) console.log(`| ${r.join(' | ')} |`);
