import { defineConfig } from 'vitest/config';

// Generous timeouts: the replay tests build git repositories and run git many times.
export default defineConfig({
  test: { include: ['test/**/*.test.ts'], testTimeout: 180_000, hookTimeout: 180_000 },
});
