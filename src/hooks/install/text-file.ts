// Files that are not JSON and hold a token (Codex's project config.toml, Gemini's .gemini/.env):
// written only when their bytes change, owner-only, kept out of git, and known as ours by the
// mark they open with, so neither install nor uninstall ever touches such a file of the user's.
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { ensureIgnored, ensureMode, removeIgnored, TOKEN_FILE_MODE, type FileChange } from './common.js';

export function writeTextFile(file: string, text: string, mode?: number): FileChange {
  if (existsSync(file) && readFileSync(file, 'utf8') === text) return { file, changed: ensureMode(file, mode) };
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text, mode ? { mode } : {});
  ensureMode(file, mode);
  return { file, changed: true };
}

export interface MarkedFile {
  /** the file opens with our mark */
  isOurs(root: string): boolean;
  /** its text after the mark, when ours */
  read(root: string): string | undefined;
  /** writes mark + body and keeps the file out of git; the note says when an exclude line was added */
  write(root: string, body: string): { change: FileChange; ignoredNote?: string };
  /** removes it (and its exclude line) when ours */
  remove(root: string, excluded: boolean): FileChange[];
}

export function markedFile(rel: string, mark: string): MarkedFile {
  const abs = (root: string) => path.join(root, rel);
  const isOurs = (root: string) => existsSync(abs(root)) && readFileSync(abs(root), 'utf8').startsWith(`${mark}\n`);
  return {
    isOurs,
    read: (root) => (isOurs(root) ? readFileSync(abs(root), 'utf8').slice(mark.length + 1) : undefined),
    write(root, body) {
      const change = writeTextFile(abs(root), `${mark}\n${body}`, TOKEN_FILE_MODE);
      const ignoredNote = ensureIgnored(root, rel);
      return { change, ...(ignoredNote ? { ignoredNote } : {}) };
    },
    remove(root, excluded) {
      const changes: FileChange[] = [];
      if (isOurs(root)) {
        rmSync(abs(root));
        changes.push({ file: abs(root), changed: true, removed: true });
      }
      if (excluded) removeIgnored(root, rel);
      return changes;
    },
  };
}
