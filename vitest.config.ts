import { availableParallelism } from 'node:os';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'service/**/*.test.ts', 'channels/**/*.test.ts', 'actors/**/*.test.ts', 'tools/**/*.test.ts', 'surfaces/**/*.test.ts', 'queues/**/*.test.ts', 'test/**/*.test.ts'],
    // Two test files at once even on two cores (vitest's default there is one): most of the suite
    // waits on the servers it starts (Redis, Dovecot, Chromium), not on its own CPU. On a 2-core
    // machine one worker took 16 min, two about 10.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
