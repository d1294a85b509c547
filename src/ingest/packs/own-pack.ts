// Doco's own docs pack: its README.md and docs/**/*.md (the filesystem ingester's skip rules:
// no docs/archive/, no dotted entries), read from the project root on each request.
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { findProjectRoot } from '../../lib/project-root.js';
import { listDocFiles } from '../docs/sections.js';
import type { DocsPack } from './format.js';

export const OWN_PACK_CODE = 'doco';

export async function readOwnPack(root: string = findProjectRoot()): Promise<DocsPack> {
  const paths = (await listDocFiles(root)).filter((p) => p === 'README.md' || p.startsWith('docs/'));
  const files = await Promise.all(paths.map(async (p) => ({ path: p, content: await readFile(path.join(root, p), 'utf8') })));
  return { format: 1, code: OWN_PACK_CODE, files };
}
