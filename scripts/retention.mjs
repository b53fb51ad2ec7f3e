// Retention: how much of what a continuing model needs survives compaction.
//
//   npm run bench:retention [-- path/to/shared/conformance/dialogs]
//
// Reads the built library in dist/ (npm run bench:retention builds it first; DLG_DIST points
// elsewhere). For every dialog in manifest.json it extracts facts from the dialog as the model
// reads it, in seven classes:
//
//   paths     file paths (`a/b.py`, `/x/y`, `./z`; not an HTML closing tag `</td>`) and file
//             names with a known extension,
//             anywhere (requests, replies, code, outputs)
//   names     names defined in code: `def NAME`, `class NAME`, top-level `NAME =` assignments,
//             in code cells and in the code of Python tool calls
//   tools     each tool call's name, and its string arguments of at most 40 characters
//   errors    error and exception names (`ValueError`, `KeyError`, …) in results and outputs
//   numbers   numbers of two or more digits in tool results and code outputs
//   urls      http(s) URLs anywhere (ending at white space, a quote, a bracket or a backslash)
//   requests  the first six words of each prompt's request
//
// Facts are distinct per dialog and class. A fact is retained when its text occurs in the
// output (requests: after collapsing whitespace and the DSL's ` ¶ ` on both sides). A class's
// retention on one dialog is the share of its facts retained; the figure of a class is the mean
// over the dialogs that have facts of it, and the class mean is the mean of the seven.
//
// Outputs compared, per dialog:
//   flat      the default flat document (clean profile, legend included), as the command writes it
//   plain     the dialog's text (every non-skipped cell's source, reply and output view, in
//             order) middle-cut to the flat document's tokens
//   fit 50%   flatDocument with maxTokens = half the flat document's tokens
//   fit 25%   the same at a quarter
// A dialog whose structure needs more than the budget (FitError) counts as retaining nothing
// at that budget and is listed. Every fitted document is checked to be within its budget. Last,
// the CPU time of fitting the largest dialogs is printed against that of their flat documents.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const dist = process.env.DLG_DIST ? resolve(process.env.DLG_DIST) : join(root, 'dist');
const dir = process.argv[2] ? resolve(process.argv[2]) : join(process.env.DLG_SHARED_DIR ?? join(root, '..', 'shared'), 'conformance', 'dialogs');

const { readsIpynbBytes, flatDocument } = await import(join(dist, 'notebook', 'index.js'));
const { fmt2hist } = await import(join(dist, 'chat', 'index.js'));
const { lenToks, truncToksMid } = await import(join(dist, 'tokens', 'index.js'));
const { CLASSES, facts, retained, plainText, readManifest } = await import('./facts.mjs');

const manifest = readManifest(dir, 'retention');

const OUTS = ['flat', 'plain', 'fit 50%', 'fit 25%'];
const sums = Object.fromEntries(OUTS.map((o) => [o, Object.fromEntries(CLASSES.map((c) => [c, { sum: 0, n: 0 }]))]));
const tokens = Object.fromEntries(OUTS.map((o) => [o, 0]));
const failures = [];
let over = 0;
let before = 0;
let byText = { text: -1 };
let byBytes = { bytes: -1 };
for (const { name } of manifest) {
  const file = `${name}.ipynb`;
  const d = readsIpynbBytes(readFileSync(join(dir, file)), file);
  const f = facts(d, fmt2hist);
  const flat = flatDocument(d, { source: file });
  const flatToks = lenToks(flat);
  const text = plainText(d);
  const textToks = lenToks(text);
  before += textToks;
  const bytes = readFileSync(join(dir, file)).length;
  if (textToks > byText.text) byText = { text: textToks, bytes, d, file, flatToks };
  if (bytes > byBytes.bytes) byBytes = { text: textToks, bytes, d, file, flatToks };
  const outs = { flat, plain: truncToksMid(text, flatToks) };
  for (const [label, share] of [
    ['fit 50%', 0.5],
    ['fit 25%', 0.25],
  ]) {
    const budget = Math.floor(flatToks * share);
    try {
      outs[label] = flatDocument(d, { source: file, maxTokens: budget });
      if (lenToks(outs[label]) > budget) over++;
    } catch (err) {
      if (err?.name !== 'FitError') throw err;
      failures.push(`${name} at ${label}: needs ${err.minTokens} > ${budget}`);
      outs[label] = '';
    }
  }
  for (const o of OUTS) {
    tokens[o] += lenToks(outs[o]);
    const r = retained(f, outs[o]);
    for (const c of CLASSES) {
      if (r[c] === undefined) continue;
      sums[o][c].sum += r[c];
      sums[o][c].n++;
    }
  }
}

const fmt = (x) => x.toFixed(2);
const head = ['output', 'tokens', 'class mean', ...CLASSES];
console.log(`Retention on ${manifest.length} dialogs (${before.toLocaleString('en-US')} tokens of dialog text)\n`);
console.log(`| ${head.join(' | ')} |`);
console.log(`|${head.map((_, i) => (i === 0 ? ':---' : '---:')).join('|')}|`);
for (const o of OUTS) {
  const per = CLASSES.map((c) => (sums[o][c].n ? sums[o][c].sum / sums[o][c].n : 0));
  const mean = per.reduce((a, b) => a + b, 0) / per.length;
  console.log(`| ${o} | ${tokens[o].toLocaleString('en-US')} | ${fmt(mean)} | ${per.map(fmt).join(' | ')} |`);
}
console.log(`\nfitted documents over budget: ${over}`);
if (failures.length) console.log(`budgets below the structure (FitError, counted as 0): ${failures.length}\n  ${failures.join('\n  ')}`);

// Fitting time against one compaction, on the largest dialog by file size and by text, CPU
// medians of 5 warm runs.
const cpu = (fn) => {
  fn();
  const t = [];
  for (let i = 0; i < 5; i++) {
    const c0 = process.cpuUsage();
    fn();
    const c = process.cpuUsage(c0);
    t.push((c.user + c.system) / 1000);
  }
  return t.sort((a, b) => a - b)[2];
};
for (const [what, big] of [
  ['file size', byBytes],
  ['text', byText],
]) {
  const one = cpu(() => flatDocument(big.d, { source: big.file }));
  const half = cpu(() => flatDocument(big.d, { source: big.file, maxTokens: Math.floor(big.flatToks / 2) }));
  const quarter = cpu(() => flatDocument(big.d, { source: big.file, maxTokens: Math.floor(big.flatToks / 4) }));
  console.log(
    `fitting the largest dialog by ${what}, ${big.file} (${(big.bytes / 1e6).toFixed(1)} MB, ${big.text.toLocaleString('en-US')} tokens of text): ` +
      `one flat document ${one.toFixed(0)} ms CPU; fit at 50% ${(half / one).toFixed(2)}x that, at 25% ${(quarter / one).toFixed(2)}x`,
  );
}
