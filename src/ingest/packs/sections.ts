// A docs pack as the ingester's file list: every .md/.mdx file split by the section rules of
// docs/ingest.md, and the OpenAPI document as one more file, `{code}-openapi`. Paths are prefixed
// with the code (`billing:docs/guide.mdx`), so a pack's documents and section keys can never
// be mistaken for the filesystem ingester's (whose paths start with docs/, repos/ or name a
// root file) or for another pack's.
import { isCode, lexMarkdownLines } from '../../text/markdown-lines.js';
import { splitMarkdown, type DocSection } from '../docs/sections.js';
import type { FileRead } from '../docs/types.js';
import type { DocsPack } from './format.js';
import { renderOpenApi } from './openapi.js';

export const packDocPath = (code: string, relPath: string) => `${code}:${relPath}`;
export const openApiDocPath = (code: string) => `${code}-openapi`;

const IMPORT = /^import\s/;
/**
 * The line that ends an import, its trailing space trimmed: `… from '…'`, or a bare `import '…'`.
 * (Two runs of space around an optional `;` at the end backtracked over each other: a line of
 * 100,000 spaces held a pack pull for seconds.)
 */
const IMPORT_END = /(?:\bfrom\s+|^import\s+)['"][^'"]+['"][ \t]*;?$/;
const EXPORT = /^export\s/;

/**
 * MDX's ESM lines (`import { Callout } from '…'`, `export const meta = …` on one line) and a
 * leading front-matter block are code and metadata, not prose: they are dropped before the
 * split. JSX elements stay, as text. Plain .md files are split exactly as the filesystem's.
 */
export function stripMdx(text: string): string {
  const { lines, kinds } = lexMarkdownLines(text, { frontMatter: true });
  const out: string[] = [];
  let inImport = false;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    const kind = kinds[i]!;
    if (kind === 'front-matter') continue;
    if (!isCode(kind)) {
      if (inImport || IMPORT.test(line)) {
        inImport = !IMPORT_END.test(line.trimEnd());
        continue;
      }
      if (EXPORT.test(line)) continue;
    }
    out.push(line);
  }
  return out.join('\n');
}

/** Splits one pack file; the shape is decided by the pack-relative path (docs/architecture/…). */
export function packFileSections(code: string, relPath: string, text: string): DocSection[] {
  const docPath = packDocPath(code, relPath);
  const { sections } = splitMarkdown(relPath, relPath.endsWith('.mdx') ? stripMdx(text) : text);
  // Keys are re-rooted, not re-made, so a repeated heading keeps the -2, -3… the split gave it.
  return sections.map((s) => ({
    ...s,
    path: docPath,
    section_key: `${docPath}${s.section_key.slice(relPath.length)}`,
    docTitle: s.docTitle === relPath ? docPath : s.docTitle,
  }));
}

/** Every file of the pack, as the ingester reads them; the OpenAPI document last. */
export function packFileReads(pack: DocsPack): FileRead[] {
  const reads: FileRead[] = pack.files.map((f) => ({
    path: packDocPath(pack.code, f.path),
    sections: packFileSections(pack.code, f.path, f.content),
  }));
  if (pack.openapi) {
    const docPath = openApiDocPath(pack.code);
    reads.push({ path: docPath, sections: splitMarkdown(docPath, renderOpenApi(pack.openapi)).sections });
  }
  return reads;
}
