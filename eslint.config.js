// Lint: the few rules that catch real faults here, with type information. A promise nobody
// awaits loses its error (and, in a job, its work); an import up the layers of ARCHITECTURE.md
// (lint/layers.js) tangles what a newcomer reads top to bottom; code below the edges that
// imports an edge's framework can no longer be called from the other edges. `npm run lint`,
// run by .ci/run; test/layers.test.ts plants violations and sees them refused.
//
// typescript-eslint 8.74 needs TypeScript's JavaScript API, which TypeScript 7 no longer ships:
// package.json installs TypeScript 6 as `typescript` (for this linter) and TypeScript 7 as
// `@typescript/native`, whose `tsc` builds and type-checks the project.
import tseslint from 'typescript-eslint';
import { layersConfig } from './lint/layers.js';

// Everything below the edges (src/db may run graphile-worker's own migrations and pool).
const BELOW_EDGES = [
  'hooks',
  'connectors',
  'brief',
  'align',
  'ingest',
  'retrieval',
  'indexing',
  'graph',
  'auth',
  'providers',
  'text',
  'config',
  'lib',
].map((dir) => `src/${dir}`);

const EDGE_FRAMEWORKS = {
  patterns: [
    { group: ['hono', 'hono/*', '@hono/*'], message: 'Below the edges nothing imports Hono: src/http calls it.' },
    { group: ['@modelcontextprotocol/*'], message: 'Below the edges nothing imports MCP: src/http/mcp calls it.' },
    { group: ['graphile-worker', 'graphile-worker/*'], message: 'Below the edges nothing imports graphile-worker: src/jobs calls it.' },
    { group: ['nats', 'nats/*'], message: 'Below the edges nothing imports NATS: src/nats calls it.' },
  ],
};

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '.doco/**', '.bench/**', 'eval/fixtures/**', 'bin/**'] },
  {
    files: ['**/*.ts', '**/*.tsx'],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: {
        projectService: {
          allowDefaultProject: [
            'vitest.config.ts',
            'vitest.crash.config.ts',
            'vitest.integration.config.ts',
            'vitest.agents.config.ts',
            'vitest.browser.config.ts',
            'vitest.scale.config.ts',
          ],
        },
        tsconfigRootDir: import.meta.dirname,
      },
    },
    plugins: { '@typescript-eslint': tseslint.plugin },
    linterOptions: { reportUnusedDisableDirectives: 'error' },
    rules: {
      '@typescript-eslint/no-floating-promises': 'error',
      '@typescript-eslint/await-thenable': 'error',
      '@typescript-eslint/no-misused-promises': 'error',
    },
  },
  {
    files: BELOW_EDGES.flatMap((dir) => [`${dir}/**/*.ts`, `${dir}/**/*.tsx`]),
    rules: {
      // Covers `import`, `import type` and `export … from`; the selector below covers `import()`.
      'no-restricted-imports': ['error', EDGE_FRAMEWORKS],
      'no-restricted-syntax': [
        'error',
        {
          selector: 'ImportExpression[source.value=/^(hono|@hono\\/|@modelcontextprotocol\\/|graphile-worker|nats(\\/|$))/]',
          message: 'Below the edges nothing imports Hono, MCP, graphile-worker or NATS, not even lazily.',
        },
      ],
    },
  },
  layersConfig,
);
