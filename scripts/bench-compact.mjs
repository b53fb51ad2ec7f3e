// Benchmark of dialog compaction on the built library (dist/): for the conformance dialogs
// together (../shared/conformance/dialogs, when present) and for one generated ~20 MB dialog,
// the time of read + flat document + write (the body alone, and with the evidence index and legend
// the command adds by default), and of read + in-place compaction + write, each as
// a ratio to plain JSON.parse + JSON.stringify of the same bytes timed in the same rounds (CPU
// time, and wall time in brackets); then this process's peak resident memory. Both profiles (clean, reference) are timed. With `--against DIR` (the
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
// The package's Node entry is loaded first: like any Node user's import, it registers Node's
// UTF-8 decoder, SHA-256 and zlib with the core modules timed here.
// Each timed run starts with the caches keyed by text content emptied (dist/dsl/internals.js;
// a build without it keeps its caches), so that repeating the same dialogs times a first
// compaction of them, as a user's run is, with the code warm.
const load = async (dir) => {
  await import(join(dir, 'dist', 'index.js'));
  const internals = join(dir, 'dist', 'dsl', 'internals.js');
  const clearCaches = existsSync(internals) ? (await import(internals)).dslInternals.clearCaches : () => {};
  return { clearCaches, ...(await import(join(dir, 'dist', 'dialog', 'index.js'))), ...(await import(join(dir, 'dist', 'notebook', 'index.js'))) };
};
const lib = await load(root);
const other = against ? await load(against) : null;
const which = argv[0] ?? 'corpus';
const sizeMB = Number(argv[1] ?? 20);

/**
 * Timed rounds after one warm-up run of each function, as CPU time of this process (ms; stable
 * on a shared machine, where wall time also counts other processes) and wall time. The
 * functions run alternately in each round, every other round in reverse order, so a change of
 * load or clock speed on the machine affects all alike; `fns[0]` is the yardstick, and each
 * other function's ratio is taken within each round and reported as the median of those.
 * A function's `reset`, when it has one, runs before each of its calls, outside the timing.
 * Returns per function the median CPU and wall time and the median per-round CPU and wall
 * ratios to `fns[0]`.
 */
function timeAll(fns, rounds = 9) {
  for (const fn of fns) {
    fn.reset?.();
    fn();
  }
  const cpu = fns.map(() => []);
  const wall = fns.map(() => []);
  const ratio = fns.map(() => []);
  const wallRatio = fns.map(() => []);
  for (let i = 0; i < rounds; i++) {
    const order = fns.map((_, k) => k);
    if (i % 2 === 1) order.reverse();
    const round = [];
    const roundWall = [];
    for (const k of order) {
      const fn = fns[k];
      fn.reset?.();
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      fn();
      roundWall[k] = performance.now() - t0;
      wall[k].push(roundWall[k]);
      const c = process.cpuUsage(c0);
      round[k] = (c.user + c.system) / 1000;
      cpu[k].push(round[k]);
    }
    for (let k = 0; k < fns.length; k++) {
      ratio[k].push(round[k] / round[0]);
      wallRatio[k].push(roundWall[k] / roundWall[0]);
    }
  }
  const med = (a) => a.sort((x, y) => x - y)[Math.floor(a.length / 2)];
  return fns.map((_, k) => ({ cpu: med(cpu[k]), wall: med(wall[k]), ratio: med(ratio[k]), wallRatio: med(wallRatio[k]) }));
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

// The yardstick gets the same bytes: decode, parse, stringify; it runs in every round.
const yardstick = () => {
  for (const x of items) JSON.stringify(JSON.parse(decoder.decode(x.bytes)), null, 1);
};

function tasks(L) {
  const flat = (profile) => () => {
    for (const x of items) L.dumpsIpynb(L.flatNotebook(L.readsIpynbBytes(x.bytes, x.name), { profile }));
  };
  const inPlace = (profile) => () => {
    for (const x of items) L.dumpsIpynb(L.compactDialog(L.readsIpynbBytes(x.bytes, x.name), { profile }));
  };
  const all = {
    roundtrip: () => {
      for (const x of items) L.dumpsIpynb(L.readsIpynbBytes(x.bytes, x.name));
    },
    flatClean: flat('clean'),
    // As the command writes it by default: the body with its evidence index and the legend.
    flatDocClean: () => {
      for (const x of items) {
        const d = L.readsIpynbBytes(x.bytes, x.name);
        L.dumpsIpynb(L.flatNotebook(d, { profile: 'clean' }, L.flatDocument(d, { profile: 'clean' })));
      }
    },
    flatRef: flat('reference'),
    dialogClean: inPlace('clean'),
    dialogRef: inPlace('reference'),
  };
  for (const fn of Object.values(all)) fn.reset = L.clearCaches;
  return all;
}
const mineTasks = tasks(lib);
const theirTasks = other ? tasks(other) : null;
const mine = {};
const theirs = other ? {} : null;
const floors = [];
const floorWalls = [];
for (const key of Object.keys(mineTasks)) {
  const [j, a, b] = timeAll(theirTasks ? [yardstick, mineTasks[key], theirTasks[key]] : [yardstick, mineTasks[key]]);
  floors.push(j.cpu);
  floorWalls.push(j.wall);
  mine[key] = a;
  if (theirs) theirs[key] = { ...b, vsMine: a.cpu / b.cpu };
}
const median = (a) => a.sort((x, y) => x - y)[Math.floor(a.length / 2)];
const tJson = { cpu: median(floors), wall: median(floorWalls) };
const mb = (totalBytes / 1e6).toFixed(1);
const row = (label, key, target) => {
  const t = mine[key];
  let line = `${label.padEnd(46)} cpu ${t.cpu.toFixed(0).padStart(6)} ms  wall ${t.wall.toFixed(0).padStart(6)} ms  ${t.ratio.toFixed(2).padStart(5)}x the JSON floor (wall ${t.wallRatio.toFixed(2)}x)`;
  if (target) line += ` (target <= ${target}x: ${t.ratio <= target ? 'met' : 'not met'})`;
  if (theirs) line += `; ${against}: ${theirs[key].ratio.toFixed(2)}x (this / that ${(t.ratio / theirs[key].ratio).toFixed(2)})`;
  console.log(line);
};
console.log(
  `${which}: ${items.length} dialog(s), ${mb} MB; CPU time, medians of 9 warm rounds, each timing the JSON floor and ${other ? 'both checkouts' : 'the task'} alternately; a ratio is the median of the per-round ratios to that round's floor`,
);
console.log(
  `${'UTF-8 decode + JSON.parse + stringify'.padEnd(46)} cpu ${tJson.cpu.toFixed(0).padStart(6)} ms  wall ${tJson.wall.toFixed(0).padStart(6)} ms   1.00x the JSON floor`,
);
row('read + write (round trip)', 'roundtrip');
row('read + flat document + write (clean)', 'flatClean', which === 'corpus' ? 3 : 0);
row('the same with index and legend (the command)', 'flatDocClean', which === 'corpus' ? 3 : 0);
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
