// Benchmark of dialog compaction on the built library (dist/): for the conformance dialogs
// together (../shared/conformance/dialogs, when present) and for one generated ~20 MB dialog,
// the wall time of read + flat document + write, and of read + in-place compaction + write,
// each as a ratio to plain JSON.parse + JSON.stringify of the same bytes; then this process's
// peak resident memory. Both profiles (clean, reference) are timed. With `--against DIR` (the
// root of another built checkout) the same runs are timed there too, in the same process.
// Usage: node scripts/bench-compact.mjs [corpus|generated] [sizeMB=20] [--against DIR]
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generatedDialog } from './bench-gen.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const argv = process.argv.slice(2);
const againstAt = argv.indexOf('--against');
const against = againstAt >= 0 ? resolve(argv.splice(againstAt, 2)[1]) : null;
const load = async (dir) => ({ ...(await import(join(dir, 'dist', 'dialog', 'index.js'))), ...(await import(join(dir, 'dist', 'notebook', 'index.js'))) });
const lib = await load(root);
const other = against ? await load(against) : null;
const which = argv[0] ?? 'corpus';
const sizeMB = Number(argv[1] ?? 20);

/**
 * Median of `rounds` timed runs after one warm-up run, as CPU time of this process (ms; stable
 * on a shared machine, where wall time also counts other processes) and wall time. With several
 * functions (this checkout and the one of `--against`), the runs alternate between them, so a
 * change of load on the machine affects both alike.
 */
function timeAll(fns, rounds = fns.length > 1 ? 6 : 5) {
  for (const fn of fns) fn();
  const cpu = fns.map(() => []);
  const wall = fns.map(() => []);
  for (let i = 0; i < rounds; i++) {
    // Every other round in reverse order, so neither function always runs after the other.
    const order = fns.map((_, k) => k);
    if (i % 2 === 1) order.reverse();
    for (const k of order) {
      const fn = fns[k];
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      fn();
      wall[k].push(performance.now() - t0);
      const c = process.cpuUsage(c0);
      cpu[k].push((c.user + c.system) / 1000);
    }
  }
  const med = (a) => a.sort((x, y) => x - y)[Math.floor(a.length / 2)];
  return fns.map((_, k) => ({ cpu: med(cpu[k]), wall: med(wall[k]) }));
}

function time(fn, rounds = 5) {
  return timeAll([fn], rounds)[0];
}

async function inputs() {
  if (which === 'corpus') {
    const dir = resolve(root, '..', 'shared', 'conformance', 'dialogs');
    if (!existsSync(join(dir, 'manifest.json'))) return null;
    const names = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')).map((e) => e.name);
    return names.map((n) => ({ name: n, bytes: readFileSync(join(dir, `${n}.ipynb`)) }));
  }
  return [{ name: 'generated', bytes: Buffer.from(await generatedDialog(sizeMB * 1e6), 'utf8') }];
}

const items = await inputs();
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

function tasks(L) {
  const flat = (profile) => () => {
    for (const x of items) L.dumpsIpynb(L.flatNotebook(L.readsIpynbBytes(x.bytes, x.name), { profile }));
  };
  const inPlace = (profile) => () => {
    for (const x of items) L.dumpsIpynb(L.compactDialog(L.readsIpynbBytes(x.bytes, x.name), { profile }));
  };
  return {
    roundtrip: () => {
      for (const x of items) L.dumpsIpynb(L.readsIpynbBytes(x.bytes, x.name));
    },
    flatClean: flat('clean'),
    flatRef: flat('reference'),
    dialogClean: inPlace('clean'),
    dialogRef: inPlace('reference'),
  };
}
const mineTasks = tasks(lib);
const theirTasks = other ? tasks(other) : null;
const mine = {};
const theirs = other ? {} : null;
for (const key of Object.keys(mineTasks)) {
  const [a, b] = timeAll(theirTasks ? [mineTasks[key], theirTasks[key]] : [mineTasks[key]]);
  mine[key] = a;
  if (theirs) theirs[key] = b;
}
const mb = (totalBytes / 1e6).toFixed(1);
const row = (label, key, target) => {
  const t = mine[key];
  let line = `${label.padEnd(46)} cpu ${t.cpu.toFixed(0).padStart(6)} ms  wall ${t.wall.toFixed(0).padStart(6)} ms  ${(t.cpu / tJson.cpu).toFixed(2).padStart(5)}x the JSON floor`;
  if (target) line += ` (target <= ${target}x)`;
  if (theirs) line += `; ${against}: ${(theirs[key].cpu / tJson.cpu).toFixed(2)}x (this / that ${(t.cpu / theirs[key].cpu).toFixed(2)})`;
  console.log(line);
};
console.log(
  `${which}: ${items.length} dialog(s), ${mb} MB; ratios of CPU time, medians of ${other ? '6 warm runs alternating between the two checkouts' : '5 warm runs'}`,
);
console.log(
  `${'UTF-8 decode + JSON.parse + stringify'.padEnd(46)} cpu ${tJson.cpu.toFixed(0).padStart(6)} ms  wall ${tJson.wall.toFixed(0).padStart(6)} ms   1.00x the JSON floor`,
);
row('read + write (round trip)', 'roundtrip');
row('read + flat document + write (clean)', 'flatClean', which === 'corpus' ? 3 : 0);
row('read + flat document + write (reference)', 'flatRef', which === 'corpus' ? 3 : 0);
row('read + in-place compaction + write (clean)', 'dialogClean', which === 'corpus' ? 2.5 : 0);
row('read + in-place compaction + write (reference)', 'dialogRef', which === 'corpus' ? 2.5 : 0);
if (which === 'corpus') {
  console.log(
    'The Python reference (llmsurgery + aidialog with tiktoken) could not be timed on this machine (its packages cannot be installed here); ' +
      'the targets are the JSON-floor ratios that stand in for "5x faster than the reference".',
  );
}
console.log(`peak RSS ${(process.resourceUsage().maxRSS / 1024).toFixed(0)} MB`);
