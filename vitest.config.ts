import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'service/**/*.test.ts', 'channels/**/*.test.ts', 'actors/**/*.test.ts', 'tools/**/*.test.ts', 'surfaces/**/*.test.ts', 'queues/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
