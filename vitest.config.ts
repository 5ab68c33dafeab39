import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

const root = fileURLToPath(new URL(".", import.meta.url));

export default defineConfig({
  resolve: {
    alias: [
      // The operator test harness: its own entry point (package.json "exports": "./testing").
      { find: /^@weir\/runtime\/testing$/, replacement: `${root}packages/runtime/src/testing/index.ts` },
      {
        find: /^@weir\/(parser|planner|runtime|connectors|cli)$/,
        replacement: `${root}packages/$1/src/index.ts`,
      },
    ],
  },
  test: {
    include: ["packages/*/test/**/*.test.ts", "test/**/*.test.ts"],
    testTimeout: 60_000,
    hookTimeout: 120_000,
  },
});
