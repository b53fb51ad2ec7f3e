// Benchmarks of the built command (dist/cli/main.js), each a ratio to a yardstick measured in
// the same run:
//   startup  `--version`, `--help` and the demo dialog against a bare `node -e 0`;
//   rss      peak resident memory of the command on a generated 40 MB dialog (flat and dialog
//            mode) against Node's own JSON.parse + JSON.stringify of the same file;
//   jobs     `--jobs 2` against `--jobs 1` on 200 small generated dialogs.
// Peak memory comes from /usr/bin/time (%M) when present, else it is not measured.
// Usage: node scripts/bench-command.mjs [startup|rss|jobs ...] [--mb N]
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { generatedDialog } from './bench-gen.mjs';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');
const cli = join(root, 'dist', 'cli', 'main.js');
const args = process.argv.slice(2);
const mbAt = args.indexOf('--mb');
const sizeMB = mbAt >= 0 ? Number(args[mbAt + 1]) : 40;
const which = args.filter((a, i) => !a.startsWith('--') && (mbAt < 0 || i !== mbAt + 1));
const want = (name) => which.length === 0 || which.includes(name);
const med = (a) => [...a].sort((x, y) => x - y)[Math.floor(a.length / 2)];
const tmp = mkdtempSync(join(tmpdir(), 'dlg-bench-cmd-'));

/** Median wall time (ms) of `runs` runs of node with `argv`. */
function wall(argv, runs, opts = {}) {
  const ts = [];
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now();
    const r = spawnSync(process.execPath, argv, { cwd: root, ...opts });
    ts.push(performance.now() - t0);
    if (r.status !== 0 && !opts.anyStatus) throw new Error(`node ${argv.join(' ')} failed (${r.status}): ${r.stderr}`);
  }
  return med(ts);
}

/** Peak RSS (MB) of node with `argv`, by /usr/bin/time, or null. */
function peakRss(argv) {
  if (!existsSync('/usr/bin/time')) return null;
  const r = spawnSync('/usr/bin/time', ['-f', 'RSS %M', process.execPath, ...argv], { cwd: root, encoding: 'utf8' });
  const m = /RSS (\d+)/.exec(r.stderr);
  if (r.status !== 0 || !m) throw new Error(`node ${argv.join(' ')} failed (${r.status}): ${r.stderr}`);
  return Number(m[1]) / 1024;
}

const ratio = (x, base) => `${(x / base).toFixed(2)}x`;

try {
  if (want('startup')) {
    const runs = 9;
    // Interleave the yardstick with the command so machine load hits both alike.
    const base = [];
    const ver = [];
    const help = [];
    const demo = [];
    for (let i = 0; i < runs; i++) {
      base.push(wall(['-e', '0'], 1));
      ver.push(wall([cli, '--version'], 1));
      help.push(wall([cli, '--help'], 1));
      demo.push(wall([cli, 'notebooks/demo.ipynb', '-o', join(tmp, 'demo-out.ipynb'), '--no-progress', '--no-config'], 1));
    }
    const b = med(base);
    console.log(`node -e 0: ${b.toFixed(0)} ms (median of ${runs})`);
    console.log(`--version: ${med(ver).toFixed(0)} ms, ${ratio(med(ver), b)} (target <= 1.6x)`);
    console.log(`--help:    ${med(help).toFixed(0)} ms, ${ratio(med(help), b)} (target <= 1.6x)`);
    console.log(`demo:      ${med(demo).toFixed(0)} ms, ${ratio(med(demo), b)} (target <= 2.5x)`);
  }

  if (want('rss')) {
    const file = join(tmp, 'big.ipynb');
    const text = await generatedDialog(sizeMB * 1e6);
    writeFileSync(file, text);
    const yard = join(tmp, 'yardstick.mjs');
    writeFileSync(
      yard,
      `import { readFileSync } from 'node:fs';\nconst t = readFileSync(process.argv[2], 'utf8');\nprocess.stdout.write(String(JSON.stringify(JSON.parse(t), null, 1).length));\n`,
    );
    const base = peakRss([yard, file]);
    if (base === null) console.log('peak RSS: /usr/bin/time not found; not measured');
    else {
      const flat = peakRss([cli, file, '-o', join(tmp, 'big-flat.ipynb'), '--no-progress', '--no-config']);
      const dlg = peakRss([cli, file, '--mode', 'dialog', '-o', join(tmp, 'big-dialog.ipynb'), '--no-progress', '--no-config']);
      console.log(`generated dialog: ${(text.length / 1e6).toFixed(1)} MB`);
      console.log(`JSON.parse + JSON.stringify: peak RSS ${base.toFixed(0)} MB`);
      console.log(`dlg-compact (flat):   peak RSS ${flat.toFixed(0)} MB, ${ratio(flat, base)} (target <= 1.25x)`);
      console.log(`dlg-compact (dialog): peak RSS ${dlg.toFixed(0)} MB, ${ratio(dlg, base)} (target <= 1.25x)`);
    }
  }

  if (want('jobs')) {
    const dir = join(tmp, 'small');
    mkdirSync(dir);
    for (let i = 0; i < 200; i++) writeFileSync(join(dir, `d${String(i).padStart(3, '0')}.ipynb`), await generatedDialog(20_000 + 500 * (i % 40), i));
    // Wall and CPU time (user + system, all threads) of one run, by /usr/bin/time when present.
    const timed = (argv) => {
      if (!existsSync('/usr/bin/time')) return { wall: wall(argv, 1), cpu: NaN };
      const t0 = performance.now();
      const r = spawnSync('/usr/bin/time', ['-f', 'CPU %U %S', process.execPath, ...argv], { cwd: root, encoding: 'utf8' });
      const w = performance.now() - t0;
      const m = /CPU ([\d.]+) ([\d.]+)/.exec(r.stderr);
      if (r.status !== 0 || !m) throw new Error(`node ${argv.join(' ')} failed (${r.status}): ${r.stderr}`);
      return { wall: w, cpu: 1000 * (Number(m[1]) + Number(m[2])) };
    };
    const one = [];
    const two = [];
    for (let i = 0; i < 3; i++) {
      for (const [runs, n] of [
        [one, '1'],
        [two, '2'],
      ]) {
        const out = join(tmp, `out${n}`);
        rmSync(out, { recursive: true, force: true });
        runs.push(timed([cli, dir, '--output-dir', out, '--jobs', n, '--no-progress', '--no-config', '-q']));
      }
    }
    const w1 = med(one.map((t) => t.wall));
    const w2 = med(two.map((t) => t.wall));
    const c1 = med(one.map((t) => t.cpu));
    const c2 = med(two.map((t) => t.cpu));
    console.log(
      `200 small dialogs: --jobs 1 ${w1.toFixed(0)} ms (CPU ${c1.toFixed(0)} ms), --jobs 2 ${w2.toFixed(0)} ms (CPU ${c2.toFixed(0)} ms): ` +
        `${(w1 / w2).toFixed(2)}x faster (target >= 1.6x on 2 cores), ${(c2 / c1).toFixed(2)}x the CPU`,
    );
  }
} finally {
  rmSync(tmp, { recursive: true, force: true });
}
