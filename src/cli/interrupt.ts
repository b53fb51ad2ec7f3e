/**
 * An interrupted run leaves nothing behind: on SIGINT or SIGTERM, the temporary files that
 * this process's writes still hold open (notebook/files.ts, in any thread) are removed before
 * the process ends by the same signal (exit status 130 or 143 in a shell). Outputs already
 * renamed into place stay; an output never appears half-written either way.
 */
import { realpathSync } from 'node:fs';
import { dirname } from 'node:path';
import { removeOwnTemps } from '../notebook/files.js';

const SIGNALS = ['SIGINT', 'SIGTERM'] as const;

/** The folders a write of `target` may put its temporary file in: beside it, and beside the file a link there names. */
function foldersOf(target: string): string[] {
  const dirs = [dirname(target)];
  try {
    dirs.push(dirname(realpathSync(target)));
  } catch {
    try {
      dirs.push(realpathSync(dirname(target)));
    } catch {
      // the folder is not there (yet): nothing was written into it
    }
  }
  return dirs;
}

/**
 * Until the returned function is called, SIGINT and SIGTERM remove this process's temporary
 * files beside the output paths `targets` (and beside the files links there name), then end
 * the process with that signal. Standard output (`-`) has none.
 */
export function removeTempsOnSignal(targets: readonly string[]): () => void {
  const onSignal = (signal: NodeJS.Signals) => {
    uninstall();
    removeOwnTemps(targets.filter((t) => t !== '-').flatMap(foldersOf));
    process.kill(process.pid, signal);
  };
  const uninstall = () => {
    for (const s of SIGNALS) process.off(s, onSignal);
  };
  for (const s of SIGNALS) process.on(s, onSignal);
  return uninstall;
}
