// Lint: the few rules that catch real faults here, with type information. A promise nobody
// awaits loses its error (and, in a job, its work); a capability that imports an edge's
// framework can no longer be called from the other edges. `npm run lint`, run by .ci/run.
//
// typescript-eslint 8.74 needs TypeScript's JavaScript API, which TypeScript 7 no longer ships:
// package.json installs TypeScript 6 as `typescript` (for this linter) and TypeScript 7 as
// `@typescript/native`, whose `tsc` builds and type-checks the project.
import tseslint from 'typescript-eslint';

const CAPABILITIES = ['src/graph', 'src/retrieval', 'src/indexing', 'src/brief', 'src/ingest', 'src/hooks', 'src/connectors'];

const EDGE_FRAMEWORKS = {
  patterns: [
    { group: ['hono', 'hono/*', '@hono/*'], message: 'Capabilities never import Hono: src/http calls them.' },
    { group: ['@modelcontextprotocol/*'], message: 'Capabilities never import MCP: src/http/mcp calls them.' },
    { group: ['graphile-worker', 'graphile-worker/*'], message: 'Capabilities never import graphile-worker: src/jobs calls them.' },
    { group: ['nats', 'nats/*'], message: 'Capabilities never import NATS: src/nats calls them.' },
  ],
};

export default tseslint.config(
  { ignores: ['dist/**', 'node_modules/**', '.doco/**', '.bench/**', 'eval/fixtures/**', 'bin/**'] },
  {
    files: ['**/*.ts', '**/*.tsx'],
    languageOptions: {
      parser: tseslint.parser,
      parserOptions: { projectService: { allowDefaultProject: ['vitest.config.ts', 'vitest.crash.config.ts', 'vitest.integration.config.ts', 'vitest.agents.config.ts', 'vitest.browser.config.ts'] }, tsconfigRootDir: import.meta.dirname },
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
    files: CAPABILITIES.flatMap((dir) => [`${dir}/**/*.ts`, `${dir}/**/*.tsx`]),
    rules: {
      // Covers `import`, `import type` and `export … from`; the selector below covers `import()`.
      'no-restricted-imports': ['error', EDGE_FRAMEWORKS],
      'no-restricted-syntax': [
        'error',
        {
          selector: 'ImportExpression[source.value=/^(hono|@hono\\/|@modelcontextprotocol\\/|graphile-worker|nats(\\/|$))/]',
          message: 'Capabilities never import Hono, MCP, graphile-worker or NATS, not even lazily.',
        },
      ],
    },
  },
);
