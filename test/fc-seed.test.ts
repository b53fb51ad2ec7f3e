/**
 * Every property test runs with the run's seed: each `fc.assert(` in test/ passes
 * `fcParams(...)` (test/fc-seed.ts), so CI is reproducible and the printed seed replays it.
 */
import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { DEFAULT_FC_SEED, FC_SCALE, FC_SEED, fcParams } from './fc-seed.js';
import { ROOT } from './support.js';

describe('property-test seed', () => {
  it('each fc.assert in test/ takes fcParams()', () => {
    const dir = join(ROOT, 'test');
    const unseeded: string[] = [];
    for (const f of readdirSync(dir).filter((n) => n.endsWith('.ts'))) {
      const src = readFileSync(join(dir, f), 'utf8');
      const asserts = src.split('fc.assert(').length - 1;
      const seeded = src.split('fcParams(').length - 1;
      if (asserts > 0 && seeded < asserts) unseeded.push(`${f}: ${asserts} fc.assert, ${seeded} fcParams`);
    }
    expect(unseeded).toEqual([]);
  });

  it('fcParams carries the seed and scales the run count', () => {
    if (process.env.DLG_FC_SEED === undefined) expect(FC_SEED).toBe(DEFAULT_FC_SEED);
    expect(fcParams(300)).toEqual({ seed: FC_SEED, numRuns: 300 * FC_SCALE });
    expect(fcParams()).toEqual({ seed: FC_SEED, numRuns: 100 * FC_SCALE });
  });
});
