import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'test/**/*.test.tsx'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // CI machines have 2 cores; e2e tests spawn the CLI and child processes.
    maxWorkers: 2,
  },
})
