#!/usr/bin/env node
// Longer property-test runs than CI's: every fast-check property runs SCALE times its usual
// count, with a fresh random seed (or the one given), printed first so a failure can be
// replayed with `DLG_FC_SEED=SEED npx vitest run FILE`.
//
//   node scripts/fuzz.mjs [--scale N] [--seed S] [vitest arguments, e.g. test files]
//   npm run fuzz -- --scale 20 test/py.test.ts
import { spawnSync } from 'node:child_process';
import { randomInt } from 'node:crypto';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
let scale = 10;
let seed = randomInt(2 ** 31);
const rest = [];
for (let i = 0; i < args.length; i++) {
  const a = args[i];
  if (a === '--scale' || a === '--seed') {
    const v = Number(args[++i]);
    if (!Number.isSafeInteger(v) || (a === '--scale' && v < 1)) {
      console.error(`fuzz: ${a} needs an integer${a === '--scale' ? ' >= 1' : ''}`);
      process.exit(2);
    }
    if (a === '--scale') scale = v;
    else seed = v;
  } else rest.push(a);
}
console.log(`fuzz: DLG_FC_SEED=${seed} DLG_FC_SCALE=${scale}`);
const vitest = join(root, 'node_modules', 'vitest', 'vitest.mjs');
const r = spawnSync(process.execPath, [vitest, 'run', ...rest], {
  cwd: root,
  stdio: 'inherit',
  env: { ...process.env, DLG_FC_SEED: String(seed), DLG_FC_SCALE: String(scale) },
});
if (r.error) throw r.error;
if (r.status !== 0) console.log(`fuzz: failed; replay with DLG_FC_SEED=${seed} DLG_FC_SCALE=${scale} npx vitest run ${rest.join(' ')}`.trimEnd());
process.exit(r.status ?? 1);
