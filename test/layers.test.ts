// The layering of src/ (ARCHITECTURE.md, "Layers"), checked two ways: the import graph read from
// the sources themselves (no import circle; no import up a layer or across siblings), and the
// lint rule that keeps it so, shown refusing planted violations.
import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { ESLint } from 'eslint';
import ts from 'typescript';
import tseslint from 'typescript-eslint';
import { describe, expect, it } from 'vitest';
import { layersConfig, layerViolation, resolveImport } from '../lint/layers.js';

const ROOT = path.resolve(import.meta.dirname, '..');

function sourceFiles(dir: string): string[] {
  return readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const rel = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return sourceFiles(rel);
    return /\.tsx?$/.test(entry.name) ? [rel] : [];
  });
}

/** Each file of src/ (extension dropped) → the files of src/ it imports, dynamic imports included. */
function importGraph(): Map<string, string[]> {
  const files = sourceFiles('src');
  const known = new Set(files.map((f) => f.replace(/\.tsx?$/, '')));
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const info = ts.preProcessFile(readFileSync(path.join(ROOT, file), 'utf8'), true, true);
    const targets = info.importedFiles.map((i) => resolveImport(file, i.fileName)).filter((t): t is string => t !== undefined);
    for (const t of targets) if (!known.has(t)) throw new Error(`${file} imports ${t}, which is not a file of src/`);
    graph.set(file.replace(/\.tsx?$/, ''), [...new Set(targets)]);
  }
  return graph;
}

/** Strongly connected components with more than one member, or a member importing itself (Tarjan). */
function circles(graph: Map<string, string[]>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      component.push(w);
    } while (w !== v);
    if (component.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(component.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

describe('the import graph of src/', () => {
  const graph = importGraph();

  it('has no import circle', () => {
    expect(graph.size).toBeGreaterThan(250);
    expect(circles(graph)).toEqual([]);
  });

  it('imports only down the layers, never across siblings', () => {
    const upward = [...graph].flatMap(([from, targets]) => targets.flatMap((to) => (layerViolation(from, to) ? [`${from} → ${to}`] : [])));
    expect(upward).toEqual([]);
  });

  it('finds circles and upward imports when there are some (the checks above can fail)', () => {
    const planted = new Map([
      ['src/graph/a', ['src/graph/b']],
      ['src/graph/b', ['src/graph/a']],
    ]);
    expect(circles(planted)).toEqual([['src/graph/a', 'src/graph/b']]);
    expect(layerViolation('src/text/tokenize', 'src/brief/compose')).toMatch(/may not import src\/brief \(a layer above it\)/);
    expect(layerViolation('src/jobs/worker', 'src/http/app')).toMatch(/\(a sibling\)/);
    expect(layerViolation('src/http/rest/brief', 'src/http/mcp/server')).toMatch(/\(a sibling\)/);
    expect(layerViolation('src/http/deps', 'src/http/rest/brief')).toMatch(/a layer above it/);
    expect(layerViolation('src/providers/vector/port', 'src/providers/embedder')).toMatch(/a layer above it/);
    expect(layerViolation('src/brief/compose', 'src/retrieval/retrieve')).toBeUndefined();
    expect(layerViolation('src/http/rest/brief', 'src/http/deps')).toBeUndefined();
  });
});

describe('npm run lint', () => {
  const lint = async (filePath: string, code: string) => {
    const eslint = new ESLint({
      cwd: ROOT,
      overrideConfigFile: true,
      overrideConfig: [{ files: ['**/*.ts'], languageOptions: { parser: tseslint.parser } }, layersConfig],
    });
    const [result] = await eslint.lintText(code, { filePath: path.join(ROOT, filePath) });
    return result!.messages.map((m) => m.message);
  };

  it('refuses an upward import, a sibling import and an import from outside src/, in every form', async () => {
    expect(await lint('src/text/planted.ts', `import { buildApp } from '../http/app.js';\nexport const x = buildApp;\n`)).toEqual([
      'src/text may not import src/http (a layer above it): see ARCHITECTURE.md, "Layers"',
    ]);
    expect(await lint('src/jobs/planted.ts', `export { buildApp } from '../http/app.js';\n`)).toEqual([
      'src/jobs may not import src/http (a sibling): see ARCHITECTURE.md, "Layers"',
    ]);
    expect(await lint('src/lib/deep/planted.ts', `export const load = () => import('../../graph/writes.js');\n`)).toHaveLength(1);
    expect(
      await lint('src/brief/planted.ts', `import type { PoolTrace } from '../../eval/features.js';\nexport type T = PoolTrace;\n`),
    ).toEqual(['src/ never imports from outside src/ (../../eval/features.js)']);
  });

  it('lets a downward import and a package import pass', async () => {
    expect(
      await lint(
        'src/brief/planted.ts',
        `import { tokenize } from '../text/tokenize.js';\nimport * as v from 'valibot';\nexport const x = [tokenize, v];\n`,
      ),
    ).toEqual([]);
  });
});
