// Benchmark of dialog compaction on the built library (dist/): for the conformance dialogs
// together (../shared/conformance/dialogs, when present) and for one generated ~20 MB dialog,
// the wall time of read + flat document + write, and of read + in-place compaction + write,
// each as a ratio to plain JSON.parse + JSON.stringify of the same bytes; then this process's
// peak resident memory. Usage: node scripts/bench-compact.mjs [corpus|generated] [sizeMB=20]
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const lib = { ...(await import(join(root, 'dist', 'dialog', 'index.js'))), ...(await import(join(root, 'dist', 'notebook', 'index.js'))) };
const which = process.argv[2] ?? 'corpus';
const sizeMB = Number(process.argv[3] ?? 20);

/** Median of `rounds` timed runs (ms) after one warm-up run. */
function time(fn, rounds = 3) {
  fn();
  const ts = [];
  for (let i = 0; i < rounds; i++) {
    const t0 = performance.now();
    fn();
    ts.push(performance.now() - t0);
  }
  ts.sort((a, b) => a - b);
  return ts[Math.floor(ts.length / 2)];
}

function inputs() {
  if (which === 'corpus') {
    const dir = resolve(root, '..', 'shared', 'conformance', 'dialogs');
    if (!existsSync(join(dir, 'manifest.json'))) return null;
    const names = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')).map((e) => e.name);
    return names.map((n) => ({ name: n, bytes: readFileSync(join(dir, `${n}.ipynb`)) }));
  }
  return [{ name: 'generated', bytes: Buffer.from(generated(sizeMB * 1e6), 'utf8') }];
}

/** A dialog of about `size` UTF-8 bytes: notes, code cells with outputs, prompts whose replies hold tool calls with long results. */
function generated(size) {
  const d = new lib.Dialog([], { name: 'generated' });
  let i = 0;
  let approx = 0;
  const para = 'The loader reads each CSV row, converts the date column and appends to a list; profiling shows most time in parsing. ';
  while (approx < size) {
    const body = para.repeat(4 + (i % 5));
    d.mkMessage(`## Step ${i}\n\n${body}`, { type: 'note' });
    const out = Array.from({ length: 40 + (i % 30) }, (_, k) => `row ${k}: ${(k * 7919) % 10007} ok`).join('\n') + '\n';
    d.mkMessage(`import pandas as pd\ndf = pd.read_csv("data_${i}.csv")\nprint(df.head(${i % 50}))`, {
      type: 'code',
      output: [{ output_type: 'stream', name: 'stdout', text: out }],
    });
    const result = 'x,y,z\n' + Array.from({ length: 300 }, (_, k) => `${k},${k * 3},${(k * 31) % 97}`).join('\n');
    const tool = { id: `toolu_${i.toString(16).padStart(8, '0')}`, name: 'read_file', args: { path: `data_${i}.csv`, limit: 300 }, result };
    const reply = `Let me look at the file.\n\n\`\`\`json {.tool}\n${JSON.stringify(tool, null, 2)}\n\`\`\`\n\n${body}\n\nThe parse of column ${i} dominates.`;
    d.mkMessage(`Why is step ${i} slow? ${body.slice(0, 200)}`, { type: 'prompt', reply });
    approx += body.length * 3 + out.length + result.length * 1.3 + 600;
    i++;
  }
  return lib.dumpsIpynb(d);
}

const items = inputs();
if (!items) {
  console.log(`${which}: ../shared/conformance/dialogs not found; skipped`);
  process.exit(0);
}
const totalBytes = items.reduce((a, x) => a + x.bytes.length, 0);
const decoder = new TextDecoder('utf-8', { fatal: true });

// The yardstick gets the same bytes: decode, parse, stringify.
const tJson = time(() => {
  for (const x of items) JSON.stringify(JSON.parse(decoder.decode(x.bytes)), null, 1);
});
const tRoundtrip = time(() => {
  for (const x of items) lib.dumpsIpynb(lib.readsIpynbBytes(x.bytes, x.name));
});
const tFlat = time(() => {
  for (const x of items) lib.dumpsIpynb(lib.flatNotebook(lib.readsIpynbBytes(x.bytes, x.name)));
});
const tDialog = time(() => {
  for (const x of items) lib.dumpsIpynb(lib.compactDialog(lib.readsIpynbBytes(x.bytes, x.name)));
});
const mb = (totalBytes / 1e6).toFixed(1);
const row = (label, ms) => console.log(`${label.padEnd(40)} ${ms.toFixed(0).padStart(6)} ms   ${(ms / tJson).toFixed(2).padStart(5)}x yardstick`);
console.log(`${which}: ${items.length} dialog(s), ${mb} MB`);
row('UTF-8 decode + JSON.parse + stringify', tJson);
row('read + write (round trip)', tRoundtrip);
row('read + flat document + write', tFlat);
row('read + in-place compaction + write', tDialog);
console.log(`peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`);
