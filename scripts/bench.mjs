// `npm run bench`: every speed and memory figure of the project, each measured in its own
// child process so peak memory is per task. Figures are ratios to a yardstick measured in the
// same run (plain JSON.parse + JSON.stringify of the same bytes) where one applies.
import { spawnSync } from 'node:child_process';
import { dirname, resolve } from 'node:path';
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

// DLG_BENCH_AGAINST=DIR (another built checkout) adds its ratios to the compaction and command rows.
const against = process.env.DLG_BENCH_AGAINST ? ['--against', process.env.DLG_BENCH_AGAINST] : [];

run('Tokens (o200k_base)', ['scripts/bench-tokens.mjs']);
run('Browser bundle of dlg-compact/core', ['scripts/bench-bundle.mjs']);
run('Notebook read + write, generated 20 MB dialog', ['scripts/bench-notebook.mjs', '--mb', '20', '--runs', '3']);
run('Compaction, the 44 conformance dialogs together', ['scripts/bench-compact.mjs', 'corpus', ...against]);
run('Compaction, one generated 20 MB dialog', ['scripts/bench-compact.mjs', 'generated', '20', ...against]);
run('Command: the 44 conformance dialogs against the JSON floor', ['scripts/bench-command.mjs', 'corpus', ...against]);
run('Command: start-up against node -e 0', ['scripts/bench-command.mjs', 'startup', ...against]);
run('Command: peak memory on a generated 40 MB dialog', ['scripts/bench-command.mjs', 'rss', '--mb', '40', ...against]);
run('Command: --jobs 2 against --jobs 1 on 200 small dialogs', ['scripts/bench-command.mjs', 'jobs', ...against]);
