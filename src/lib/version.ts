// The running Doco version, read from package.json once.
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { findProjectRoot } from './project-root.js';

export const DOCO_VERSION: string = (JSON.parse(readFileSync(path.join(findProjectRoot(), 'package.json'), 'utf8')) as { version: string })
  .version;
