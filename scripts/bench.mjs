// `npm run bench`: every speed and memory figure of the project, each measured in its own
// child process so peak memory is per task. Figures are ratios to a yardstick measured in the
// same run (plain JSON.parse + JSON.stringify of the same bytes) where one applies.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

function run(title, args) {
  console.log(`\n## ${title}`);
  const r = spawnSync(process.execPath, args, { cwd: root, stdio: 'inherit' });
  if (r.status !== 0) {
    console.log(`(failed with status ${r.status})`);
    process.exitCode = 1;
  }
}

run('Tokens (o200k_base)', ['scripts/bench-tokens.mjs']);
run('Notebook read + write, generated 20 MB dialog', ['scripts/bench-notebook.mjs', '--mb', '20', '--runs', '3']);
run('Compaction, the 44 conformance dialogs together', ['scripts/bench-compact.mjs', 'corpus']);
run('Compaction, one generated 20 MB dialog', ['scripts/bench-compact.mjs', 'generated', '20']);

console.log('\n## Command cold start on the demo dialog');
const out = mkdtempSync(join(tmpdir(), 'dlg-bench-'));
try {
  const times = [];
  for (let i = 0; i < 5; i++) {
    const t0 = performance.now();
    const r = spawnSync(process.execPath, ['dist/cli/main.js', 'notebooks/demo.ipynb', '-o', join(out, `demo-${i}.ipynb`), '--no-progress'], { cwd: root });
    times.push(performance.now() - t0);
    if (r.status !== 0) throw new Error(`dlg-compact failed: ${r.stderr}`);
  }
  const base = [];
  for (let i = 0; i < 5; i++) {
    const t0 = performance.now();
    spawnSync(process.execPath, ['-e', '0']);
    base.push(performance.now() - t0);
  }
  const med = (a) => a.sort((x, y) => x - y)[Math.floor(a.length / 2)];
  console.log(
    `dlg-compact notebooks/demo.ipynb: ${med(times).toFixed(0)} ms (median of 5); bare \`node -e 0\`: ${med(base).toFixed(0)} ms; ratio ${(med(times) / med(base)).toFixed(1)}x`,
  );
} finally {
  rmSync(out, { recursive: true, force: true });
}
