#!/usr/bin/env node
/**
 * Benchmark of notebook text I/O (src/notebook/): builds a synthetic dialog of about N MB in
 * memory (prompts with long Markdown replies, code cells with stream, text/plain, text/html
 * and base64 image outputs, metadata), then times readsIpynb + dumpsIpynb against the native
 * baseline JSON.parse + JSON.stringify(_, null, 1) of the same text, and prints the ratio.
 *
 * Usage: npm run build && node scripts/bench-notebook.mjs [--mb 20] [--runs 5] [--once]
 *          [--save FILE] [--load FILE]
 *   --once: a single read + write (no baseline), reporting time and peak RSS (for big sizes,
 *           e.g. --mb 100 --once).
 *   --save FILE: also write the built notebook to FILE.  --load FILE: bench FILE instead.
 * DLG_DIST selects the compiled library directory (default ../dist next to this script).
 */
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const dist = resolve(process.env.DLG_DIST ?? join(here, '..', 'dist'));
const { readsIpynb, dumpsIpynb } = await import(pathToFileURL(join(dist, 'index.js')).href);

const args = process.argv.slice(2);
const opt = (name, dflt) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? Number(args[i + 1]) : dflt;
};
const targetMb = opt('mb', 20);
const runs = opt('runs', 5);
const once = args.includes('--once');
const strOpt = (name) => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
const { readFileSync, writeFileSync } = await import('node:fs');

const SEP = '\n\n##### 🤖Reply🤖<!-- SOLVEIT_SEPARATOR_7f3a9b2c -->\n\n';

/** Deterministic pseudo-random numbers (so every run builds the same dialog). */
let seed = 12345;
const rnd = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff;
const WORDS = [
  'the',
  'dialog',
  'notebook',
  'tool',
  'call',
  'result',
  'token',
  'budget',
  'über',
  'naïve',
  '🤖',
  'compact',
  'reply',
  'cell',
  'output',
  'x = 1',
  '"quoted"',
  'back\\slash',
  'tab\there',
];
const words = (n) => Array.from({ length: n }, () => WORDS[Math.floor(rnd() * WORDS.length)]).join(' ');
const lines = (n, w) => Array.from({ length: n }, () => words(w) + '\n');
const b64 = (n) => {
  const A = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
  let s = '';
  for (let i = 0; i < n; i++) s += A[Math.floor(rnd() * 64)];
  return s;
};

/** Build notebook text of about `mb` megabytes (UTF-16 units) in nbformat's layout. */
function buildText(mb) {
  const cells = [];
  let size = 0;
  let k = 0;
  while (size < mb * 1e6) {
    k++;
    const id = k.toString(16).padStart(8, '0');
    let cell;
    if (k % 3 === 0) {
      const src = lines(3, 12).join('') + SEP + lines(60 + Math.floor(rnd() * 60), 14).join('');
      cell = { cell_type: 'markdown', id, metadata: { solveit_ai: true, time_run: '1:00p' }, source: src.split(/(?<=\n)/) };
    } else if (k % 3 === 1) {
      const outputs = [
        { name: 'stdout', output_type: 'stream', text: lines(40, 10) },
        { data: { 'text/html': lines(10, 8), 'text/plain': lines(5, 8) }, execution_count: k, metadata: {}, output_type: 'execute_result' },
      ];
      if (k % 12 === 1) outputs.push({ data: { 'image/png': b64(20000), 'text/plain': ['<Figure>'] }, metadata: {}, output_type: 'display_data' });
      cell = { cell_type: 'code', execution_count: k, id, metadata: { collapsed: false, ratio: 0.5 }, outputs, source: lines(12, 8) };
    } else {
      cell = { cell_type: 'markdown', id, metadata: {}, source: lines(8, 12) };
    }
    const piece = JSON.stringify(cell);
    size += piece.length;
    cells.push(cell);
  }
  return JSON.stringify({ cells, metadata: { solveit_dialog_mode: 'learning', solveit_ver: 2 }, nbformat: 4, nbformat_minor: 5 }, null, 1) + '\n';
}

// Times are process CPU time (user + system, all threads, so GC helpers count), which a busy
// machine distorts much less than wall-clock time; wall-clock is kept for the report too.
let wallTotal = 0;
const time = (f) => {
  const c = process.cpuUsage();
  const t = process.hrtime.bigint();
  const r = f();
  wallTotal += Number(process.hrtime.bigint() - t) / 1e6;
  const d = process.cpuUsage(c);
  return [(d.user + d.system) / 1e3, r];
};
const median = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];
const min = (a) => Math.min(...a);
const mb = (n) => (n / 1e6).toFixed(1);

const load = strOpt('load');
const [tBuild, text] = time(() => (load ? readFileSync(load, 'utf8') : buildText(targetMb)));
if (strOpt('save')) writeFileSync(strOpt('save'), text);
console.log(`${load ? 'loaded' : 'built'} ${mb(text.length)} M UTF-16 units (${mb(Buffer.byteLength(text))} MB UTF-8) in ${tBuild.toFixed(0)} ms`);

if (once) {
  const [tr, d] = time(() => readsIpynb(text, 'bench.ipynb'));
  const [tw, out] = time(() => dumpsIpynb(d));
  const peak = process.resourceUsage().maxRSS / 1024;
  console.log(
    `messages ${d.messages.length}; read ${tr.toFixed(0)} ms, write ${tw.toFixed(0)} ms; output ${out === text ? 'identical to input' : 'DIFFERS from input'}`,
  );
  console.log(`peak RSS ${peak.toFixed(0)} MB`);
  process.exit(out === text ? 0 : 1);
}

const base = [];
const ours = [];
const reads = [];
const writes = [];
let same = true;
const wall = { base: 0, ours: 0 };
for (let r = 0; r < runs; r++) {
  wallTotal = 0;
  const [tp, v] = time(() => JSON.parse(text));
  const [ts] = time(() => JSON.stringify(v, null, 1));
  base.push(tp + ts);
  wall.base += wallTotal;
  wallTotal = 0;
  const [tr, d] = time(() => readsIpynb(text, 'bench.ipynb'));
  const [tw, out] = time(() => dumpsIpynb(d));
  reads.push(tr);
  writes.push(tw);
  ours.push(tr + tw);
  wall.ours += wallTotal;
  same &&= out === text;
}
const b = median(base);
const o = median(ours);
console.log(`baseline JSON.parse+JSON.stringify: median ${b.toFixed(0)} ms CPU, min ${min(base).toFixed(0)} ms (${runs} runs)`);
console.log(
  `readsIpynb+dumpsIpynb: median ${o.toFixed(0)} ms (read ${median(reads).toFixed(0)}, write ${median(writes).toFixed(0)}), min ${min(ours).toFixed(0)} ms`,
);
console.log(`round trip identical: ${same}`);
console.log(`ratio (CPU time): ${(o / b).toFixed(2)} (medians), ${(min(ours) / min(base)).toFixed(2)} (minima)`);
console.log(`ratio (wall clock, totals): ${(wall.ours / wall.base).toFixed(2)}`);
console.log(`peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`);
