// The layering of src/ (ARCHITECTURE.md, "Layers"), as an ESLint rule: a file imports only from
// modules below its own. Modules on one line are siblings and never import each other (the
// edges, for one); a module may hold layers of its own (http/, providers/). Relative imports are
// resolved to paths first, so `../http/app.js` and `../../http/app.js` are judged alike, and
// `import type`, `export … from` and `import()` count as imports. src/ never imports from
// outside src/ (test/, bench/, eval/).
import path from 'node:path';

/** Top to bottom. A string is a module (a folder, or a file without its extension); a nested
 *  `{ module, layers }` orders the module's own parts, the module's own name standing for the
 *  files in none of them. A path belongs to the entry whose name is its longest prefix. */
export const LAYERS = [
  ['src/main'],
  [
    {
      module: 'src/http',
      layers: [['src/http/app'], ['src/http/rest', 'src/http/mcp', 'src/http/console'], ['src/http']],
    },
    'src/jobs',
    'src/cli',
    'src/nats',
  ],
  ['src/hooks', 'src/connectors'],
  ['src/brief', 'src/align', 'src/ingest'],
  ['src/retrieval', 'src/indexing'],
  ['src/graph'],
  ['src/auth'],
  [{ module: 'src/providers', layers: [['src/providers'], ['src/providers/vector']] }],
  ['src/text'],
  ['src/db'],
  ['src/config'],
  ['src/lib'],
  ['src/errors'],
];

const stripExtension = (p) => p.replace(/\.(ts|tsx|js|mjs)$/, '');
const inside = (p, module) => p === module || p.startsWith(`${module}/`);
const nameOf = (entry) => (typeof entry === 'string' ? entry : entry.module);

/** Where a path sits in a list of layers: [layer index, entry] of the longest match, or undefined. */
function place(layers, p) {
  let found;
  for (let i = 0; i < layers.length; i++) {
    for (const entry of layers[i]) {
      if (inside(p, nameOf(entry)) && (!found || nameOf(entry).length > nameOf(found[1]).length)) found = [i, entry];
    }
  }
  return found;
}

/**
 * Why an import from `from` to `to` (repository-relative, extensions dropped) breaks the
 * layering, or undefined when it keeps it.
 */
export function layerViolation(from, to, layers = LAYERS) {
  const a = place(layers, from);
  const b = place(layers, to);
  if (!a || !b) return undefined;
  if (a[1] === b[1]) return typeof a[1] === 'string' ? undefined : layerViolation(from, to, a[1].layers);
  if (a[0] < b[0]) return undefined;
  const what = a[0] === b[0] ? 'a sibling' : 'a layer above it';
  return `${nameOf(a[1])} may not import ${nameOf(b[1])} (${what}): see ARCHITECTURE.md, "Layers"`;
}

/** The repository-relative target of a relative import, or undefined for a package import. */
export function resolveImport(fromFile, specifier) {
  if (!specifier.startsWith('.')) return undefined;
  return stripExtension(path.posix.normalize(path.posix.join(path.posix.dirname(fromFile), specifier)));
}

const rule = {
  meta: { type: 'problem', docs: { description: 'imports in src/ go only down the layers of ARCHITECTURE.md' }, schema: [] },
  create(context) {
    const file = path.relative(context.cwd, context.filename).split(path.sep).join('/');
    if (!file.startsWith('src/')) return {};
    const check = (node, source) => {
      if (!source || typeof source.value !== 'string') return;
      const target = resolveImport(file, source.value);
      if (target === undefined) return;
      if (!target.startsWith('src/')) {
        context.report({ node, message: `src/ never imports from outside src/ (${source.value})` });
        return;
      }
      const why = layerViolation(stripExtension(file), target);
      if (why) context.report({ node, message: why });
    };
    return {
      ImportDeclaration: (node) => check(node, node.source),
      ExportNamedDeclaration: (node) => check(node, node.source),
      ExportAllDeclaration: (node) => check(node, node.source),
      ImportExpression: (node) => check(node, node.source.type === 'Literal' ? node.source : undefined),
    };
  },
};

export const layersPlugin = { rules: { 'downward-only': rule } };

/** The config block eslint.config.js uses, and the lint test runs on a planted file. */
export const layersConfig = {
  files: ['src/**/*.ts', 'src/**/*.tsx'],
  plugins: { layers: layersPlugin },
  rules: { 'layers/downward-only': 'error' },
};
