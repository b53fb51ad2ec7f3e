/**
 * Runs once before the whole test run (vitest `globalSetup`): prints the seed and scale of the
 * property tests, so that any run can be repeated with `DLG_FC_SEED=... npx vitest run`, and
 * says when the shared conformance data is missing (its suites are then skipped).
 */
import { FC_SCALE, FC_SEED } from './fc-seed.js';
import { HAVE_SHARED, SHARED } from './support.js';

export default function setup(): void {
  console.log(`[dlg-compact tests] fast-check seed ${FC_SEED} (DLG_FC_SEED), runs x${FC_SCALE} (DLG_FC_SCALE)`);
  if (!HAVE_SHARED) {
    console.warn(`[dlg-compact tests] ${SHARED} not found: the suites that read it are skipped (DLG_SHARED_DIR names another place)`);
  }
}
