// Doco's own docs pack: its README.md and docs/**/*.md (the filesystem ingester's skip rules:
// no docs/archive/, no dotted entries, no symbolic link out of the root), read from the project
// root on each request.
import { findProjectRoot } from '../../lib/project-root.js';
import { listDocTree, readDocFile } from '../docs/tree.js';
import type { DocsPack } from './format.js';

export const OWN_PACK_CODE = 'doco';

export async function readOwnPack(root: string = findProjectRoot()): Promise<DocsPack> {
  const listed = (await listDocTree(root)).files.filter((f) => f.path === 'README.md' || f.path.startsWith('docs/'));
  const files = await Promise.all(listed.map(async (f) => ({ path: f.path, content: await readDocFile(f.real) })));
  return { format: 1, code: OWN_PACK_CODE, files };
}
