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
//   urls      http(s) URLs anywhere
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
// at that budget and is listed. Every fitted document is checked to be within its budget.
import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(fileURLToPath(new URL('..', import.meta.url)));
const dist = process.env.DLG_DIST ? resolve(process.env.DLG_DIST) : join(root, 'dist');
const dir = process.argv[2] ? resolve(process.argv[2]) : join(process.env.DLG_SHARED_DIR ?? join(root, '..', 'shared'), 'conformance', 'dialogs');

const { readsIpynbBytes, flatDocument } = await import(join(dist, 'notebook', 'index.js'));
const { fmt2hist } = await import(join(dist, 'chat', 'index.js'));
const { lenToks, truncToksMid } = await import(join(dist, 'tokens', 'index.js'));

const CLASSES = ['paths', 'names', 'tools', 'errors', 'numbers', 'urls', 'requests'];
const EXT =
  'py|ipynb|js|mjs|ts|tsx|json|md|txt|csv|tsv|yaml|yml|toml|cfg|ini|sh|html|css|c|h|cpp|rs|go|java|rb|sql|xml|log|pdf|png|jpg|jpeg|gif|svg|parquet|pkl|nc|zip|gz';
const PATH_RE = new RegExp(`(?<!<)(?:~|\\.{1,2})?(?:/[\\w.@+-]+)+/?|\\b[\\w.-]+(?:/[\\w.@+-]+)+|\\b[\\w-]+\\.(?:${EXT})\\b`, 'g');
const DEF_RE = /^(?:async\s+)?(?:def|class)\s+([A-Za-z_]\w*)|^([A-Za-z_]\w*)\s*(?::[^=\n]*)?=(?!=)/gm;
const ERR_RE = /\b[A-Z]\w*(?:Error|Exception)\b/g;
const NUM_RE = /\d+(?:[.,]\d+)*/g;
const URL_RE = /https?:\/\/[^\s'"<>`)\]]+/g;

const add = (set, re, text, group = 0) => {
  for (const m of text.matchAll(re)) {
    const v = m[group] ?? m[2];
    if (v) set.add(v);
  }
};

/** The facts of a dialog, by class. */
function facts(d) {
  const f = Object.fromEntries(CLASSES.map((c) => [c, new Set()]));
  const code = (src) => add(f.names, DEF_RE, src, 1);
  const results = (text) => {
    add(f.errors, ERR_RE, text);
    for (const m of text.matchAll(NUM_RE)) if (m[0].replace(/\D/g, '').length >= 2) f.numbers.add(m[0]);
  };
  const anywhere = (text) => {
    add(f.paths, PATH_RE, text);
    add(f.urls, URL_RE, text);
  };
  for (const m of d.messages) {
    if (m.skipped || (m.type === 'raw' && m.meta && Object.hasOwn(m.meta, 'rec_kind'))) continue;
    anywhere(m.content);
    if (m.type === 'code') {
      code(m.content);
      const view = m.aiOutput;
      anywhere(view);
      results(view);
    }
    if (m.type === 'prompt') {
      const words = m.content.trim().split(/\s+/).slice(0, 6).join(' ');
      if (words) f.requests.add(words);
      anywhere(m.reply);
      for (const msg of fmt2hist(m.reply)) {
        for (const part of msg.content) {
          if (part.type === 'tool_use') {
            f.tools.add(part.name);
            for (const v of Object.values(part.arguments ?? {})) {
              if (typeof v === 'string' && v.length > 0 && v.length <= 40 && !v.includes('\n')) f.tools.add(v);
              if (typeof v === 'string' && (part.name === 'py' || part.name.endsWith('execute'))) code(v);
            }
          } else if (part.type === 'tool_result') results(part.text);
        }
      }
    }
  }
  for (const u of f.urls) f.paths.delete(u.replace(/^https?:/, ''));
  return f;
}

const squash = (s) => s.replace(/ ¶ /g, ' ').replace(/\s+/g, ' ');

/** Share retained per class (undefined for a class without facts). */
function retained(f, out) {
  const flat = squash(out);
  const r = {};
  for (const c of CLASSES) {
    if (f[c].size === 0) continue;
    let n = 0;
    for (const x of f[c]) if (c === 'requests' ? flat.includes(squash(x)) : out.includes(x)) n++;
    r[c] = n / f[c].size;
  }
  return r;
}

/** The dialog's plain text: what the model reads, cell by cell. */
function plainText(d) {
  const parts = [];
  for (const m of d.messages) {
    if (m.skipped) continue;
    parts.push(m.content);
    if (m.type === 'prompt' && m.reply) parts.push(m.reply);
    if (m.type === 'code' && m.output.length) parts.push(m.aiOutput);
  }
  return parts.join('\n\n');
}

let manifest;
try {
  manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'));
} catch (err) {
  console.error(`retention: cannot read ${join(dir, 'manifest.json')}: ${err.message}`);
  process.exit(1);
}

const OUTS = ['flat', 'plain', 'fit 50%', 'fit 25%'];
const sums = Object.fromEntries(OUTS.map((o) => [o, Object.fromEntries(CLASSES.map((c) => [c, { sum: 0, n: 0 }]))]));
const tokens = Object.fromEntries(OUTS.map((o) => [o, 0]));
const failures = [];
let over = 0;
let before = 0;
for (const { name } of manifest) {
  const file = `${name}.ipynb`;
  const d = readsIpynbBytes(readFileSync(join(dir, file)), file);
  const f = facts(d);
  const flat = flatDocument(d, { source: file });
  const flatToks = lenToks(flat);
  const text = plainText(d);
  before += lenToks(text);
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
