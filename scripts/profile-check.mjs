// `node scripts/profile-check.mjs [DIR]` (after `npm run build`): the clean and reference
// profiles side by side on real dialogs (default: the shared conformance dialogs, the
// NNN.ipynb files only). For each profile, over all dialogs:
//   U+FFFD introduced   replacement characters in the flat document beyond those of the input
//   🧠-only lines        lines of the flat document made only of 🧠 and whitespace
//   misplaced in code   turn separators and pieces meant to be outside code that start inside
//                       a code node (remark-parse / mdast reading of the flat document)
//   images marked       image outputs of code cells shown by a sized marker, of all image outputs
//   flat tokens         o200k_base tokens of the flat bodies (and of the clean documents with
//                       their legends)
// Targets: 0, 0, 0, all, clean body total at most 1% above the reference's.
import { readFileSync, readdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { misplacedLines } from './md-check.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const lib = (p) => import(join(root, 'dist', p));
const { readsIpynbBytes } = await lib('notebook/index.js');
const { flatPieces } = await lib('dialog/compact.js');
const { flatDocument } = await lib('notebook/flat-notebook.js');
const { lenToks } = await lib('tokens/index.js');

const dir = resolve(process.argv[2] ?? join(root, '..', 'shared', 'conformance', 'dialogs'));
const names = readdirSync(dir)
  .filter((f) => /^[^.]+\.ipynb$/.test(f))
  .sort();

const fffd = (s) => s.split('\uFFFD').length - 1;
const THINK = /^(?:\s|\uFE0F)*\u{1F9E0}(?:\s|\uFE0F|\u{1F9E0})*$/u;
// A line of only 🧠, also when it opens or closes a `» … »` or `§ … §` piece.
const thinking = (s) => s.split('\n').filter((l) => THINK.test(l.replace(/^[»§] /, '').replace(/ [»§]$/, ''))).length;

function imageOutputs(d) {
  let n = 0;
  for (const m of d.messages) {
    if (m.type !== 'code' || m.skipped) continue;
    for (const o of m.output) {
      const data = o && typeof o === 'object' ? o.data : undefined;
      if (data && typeof data === 'object' && Object.keys(data).some((k) => k.startsWith('image/'))) n++;
    }
  }
  return n;
}
// `[image/png 412 KB]` marks one output, `[6 × image/png 897 KB, 2 × image/svg+xml 3 KB]` several.
const SIZE = String.raw`\d+(?:\.\d)? (?:B|KB|MB)`;
const markers = (s) => {
  let n = (s.match(new RegExp(String.raw`\[image\/[a-z0-9.+-]+ ${SIZE}(?: "[^"\n]*")?\]`, 'g')) ?? []).length;
  for (const m of s.matchAll(new RegExp(String.raw`(\d+) × image\/[a-z0-9.+-]+ ${SIZE}`, 'g'))) n += Number(m[1]);
  return n;
};

const totals = {};
for (const profile of ['reference', 'clean'])
  totals[profile] = { fffd: 0, think: 0, misplaced: 0, separators: 0, marked: 0, images: 0, tokens: 0, docTokens: 0 };
const worst = [];
for (const name of names) {
  const bytes = readFileSync(join(dir, name));
  const d = readsIpynbBytes(bytes, name);
  const inputFffd = fffd(bytes.toString('utf8'));
  const images = imageOutputs(d);
  for (const profile of ['reference', 'clean']) {
    const t = totals[profile];
    const { doc, misplaced } = misplacedLines(flatPieces(d, { profile }));
    t.fffd += Math.max(0, fffd(doc) - inputFffd);
    t.think += thinking(doc);
    t.misplaced += misplaced.length;
    t.separators += misplaced.filter((x) => x.kind === 'separator').length;
    t.images += images;
    t.marked += Math.min(images, markers(doc));
    t.tokens += lenToks(doc);
    t.docTokens += profile === 'clean' ? lenToks(flatDocument(d, { policy: { profile }, source: name })) : lenToks(doc);
    if (profile === 'clean' && misplaced.length)
      worst.push(
        `${name}: ${misplaced.length} (${misplaced
          .slice(0, 3)
          .map((x) => JSON.stringify(x.line))
          .join(', ')})`,
      );
  }
}
console.log(`${names.length} dialogs in ${dir}`);
console.log('profile     U+FFFD  🧠-only  in-code (separators)  images marked  flat tokens  with legend');
for (const profile of ['reference', 'clean']) {
  const t = totals[profile];
  console.log(
    `${profile.padEnd(10)} ${String(t.fffd).padStart(7)} ${String(t.think).padStart(8)} ${String(t.misplaced).padStart(8)} (${t.separators})`.padEnd(46) +
      `${t.marked}/${t.images}`.padStart(10) +
      String(t.tokens).padStart(13) +
      String(t.docTokens).padStart(13),
  );
}
const r = totals.reference.tokens;
console.log(`clean / reference flat tokens: ${(totals.clean.tokens / r).toFixed(4)} (with legends ${(totals.clean.docTokens / r).toFixed(4)})`);
if (worst.length) console.log(`clean profile, pieces in code:\n  ${worst.join('\n  ')}`);
