/**
 * The seed and run counts of the property tests (fast-check), from one place. Free of side
 * effects, so that the global setup can print the seed before any suite loads.
 */

/**
 * Property tests (fast-check) run with one seed, so a run is reproducible: `DLG_FC_SEED`
 * (an integer) when set, else {@link DEFAULT_FC_SEED}. The test run prints it once
 * (test/global-setup.ts); a failing property prints its own counterexample and path too.
 */
export const DEFAULT_FC_SEED = 20240601;

/** Parse an integer environment variable, or `fallback` when unset or empty. */
function intFromEnv(name: string, fallback: number, min: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n < min) throw new Error(`${name} must be an integer >= ${min}, got ${JSON.stringify(raw)}`);
  return n;
}

/** The seed of every property test in this run. */
export const FC_SEED = intFromEnv('DLG_FC_SEED', DEFAULT_FC_SEED, -(2 ** 31));

/** Multiplier of every property's run count (`DLG_FC_SCALE`, default 1; scripts/fuzz.mjs raises it). */
export const FC_SCALE = intFromEnv('DLG_FC_SCALE', 1, 1);

/**
 * Parameters for `fc.assert`: the run's seed, and `numRuns` (fast-check's default 100 when
 * omitted) times {@link FC_SCALE}.
 */
export function fcParams(numRuns = 100): { seed: number; numRuns: number } {
  return { seed: FC_SEED, numRuns: numRuns * FC_SCALE };
}
