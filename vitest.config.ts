import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Prints the seed of the property tests once per run (test/fc-seed.ts).
    globalSetup: ['test/global-setup.ts'],
  },
});
