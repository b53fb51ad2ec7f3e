/**
 * Test support for suites that run the built command (`node dist/cli/main.js`) as a user would:
 * where it is, and a rebuild of dist/ when a source file is newer than its build output (CI
 * builds before testing, so there this does nothing).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from './support.js';

/** The built command. */
export const CLI = join(ROOT, 'dist', 'cli', 'main.js');

/** Rebuild dist/ with tsc when any .ts file under src/ is newer than its .js; throws when the build leaves no command. */
export function ensureBuilt(): void {
  const src = join(ROOT, 'src');
  const stale = (readdirSync(src, { recursive: true }) as string[])
    .filter((f) => f.endsWith('.ts'))
    .some((f) => {
      const out = join(ROOT, 'dist', f.replace(/\.ts$/, '.js'));
      return !existsSync(out) || statSync(out).mtimeMs < statSync(join(src, f)).mtimeMs;
    });
  if (stale) {
    const tsc = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');
    const r = spawnSync(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: ROOT, encoding: 'utf8' });
    if (!existsSync(CLI)) throw new Error(`build failed, no ${CLI}:\n${r.stdout}${r.stderr}`);
  }
}
