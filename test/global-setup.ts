/**
 * Runs once before the whole test run (vitest `globalSetup`): prints the seed and scale of the
 * property tests, so that any run can be repeated with `DLG_FC_SEED=... npx vitest run`.
 */
import { FC_SCALE, FC_SEED } from './fc-seed.js';

export default function setup(): void {
  console.log(`[dlg-compact tests] fast-check seed ${FC_SEED} (DLG_FC_SEED), runs x${FC_SCALE} (DLG_FC_SCALE)`);
}
