// Writes a text file only when its bytes change, like writeJsonFile, for the files that are not JSON.
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import type { FileChange } from './common.js';

export function writeTextFile(file: string, text: string, mode?: number): FileChange {
  if (existsSync(file) && readFileSync(file, 'utf8') === text) return { file, changed: false };
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text, mode ? { mode } : {});
  return { file, changed: true };
}
