// Reads a connector secret once at start-up: from its file (trimmed) or as given in env. A file
// that cannot be read stops start-up, naming the file and the variable, never the content.
import { readFileSync } from 'node:fs';
import type { SecretSource } from './environment.js';

export function readSecretFile(file: string, what: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw new Error(`cannot read ${what} from ${file}: ${(err as NodeJS.ErrnoException).code ?? 'unreadable'}`);
  }
}

/** The secret's value; `fileVar` names the variable that gave the file, for the message. */
export function readSecret(source: SecretSource | undefined, fileVar: string): string | undefined {
  if (!source) return undefined;
  return 'file' in source ? readSecretFile(source.file, fileVar).trim() : source.value;
}
