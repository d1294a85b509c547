// Where the installed project lives: the folder holding migrations/, sql/ and package.json.
import { existsSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The project root (holding migrations/ and sql/), whether this file runs from src/ or dist/src/. */
export function findProjectRoot(from = path.dirname(fileURLToPath(import.meta.url))): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    if (existsSync(path.join(dir, 'migrations')) && existsSync(path.join(dir, 'sql', 'index.txt'))) return dir;
    if (path.dirname(dir) === dir) throw new Error(`no migrations/ and sql/ above ${from}`);
  }
}
