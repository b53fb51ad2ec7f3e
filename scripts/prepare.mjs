// `npm run prepare`: what npm runs on `npm install` in a checkout, before it packs the package
// (`npm pack`), and when it installs the package from git (pre-commit's `language: node` hooks do
// that, and npm runs no other script for a git install). It builds dist/ (scripts/build.mjs).
// With a prefix of its own in the environment (`npm_config_prefix`, which pre-commit sets to its
// hook environment), npm's install of a git clone's dev dependencies goes there instead, and the
// build would find no compiler: the dev dependencies are then installed here first, that prefix
// left out (with the policy settings of the outer install, which would refuse the inner one's
// scripts). npm does not run `prepare` when it installs the packed tarball.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = resolve(dirname(fileURLToPath(import.meta.url)), '..');

function run(cmd, args, env = process.env) {
  const r = spawnSync(cmd, args, { cwd: root, env, stdio: 'inherit' });
  if (r.status !== 0) process.exit(r.status ?? 1);
}

if (!existsSync(join(root, 'node_modules', 'typescript', 'bin', 'tsc'))) {
  const npm = process.env.npm_execpath;
  if (npm === undefined) {
    console.error('prepare: the dev dependencies are missing (run npm install in this folder first)');
    process.exit(1);
  }
  const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_config_(prefix|global|location|allow_scripts|allow_git)$/i.test(k)));
  run(process.execPath, [npm, 'install', '--include=dev', '--no-save', '--no-audit', '--no-fund', '--ignore-scripts'], env);
}
run(process.execPath, [join(root, 'scripts', 'build.mjs')]);
