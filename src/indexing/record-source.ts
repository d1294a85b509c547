// What of a record gets indexed: its title, heading path (for doc sections), prose and the
// text fields of its body (a decision's question and rejected alternatives are worth finding),
// with the metadata that is part of each chunk's content hash.
import type { ChunkSource } from './chunker.js';
import { TOKENIZER_VERSION } from '../text/tokenize.js';

export interface IndexableNode {
  id: string;
  workspace_id: string;
  collection_id: string;
  node_type: string;
  title: string;
  prose: string;
  body: Record<string, unknown>;
}

/** Body keys that describe where a record came from rather than what it says. */
const META_KEYS = new Set(['shape', 'source_kind', 'source_type', 'pointer', 'heading_path', 'section_key', 'content_hash', 'adr_status']);

const label = (key: string) => key.replace(/[_-]+/g, ' ').replace(/^\w/, (c) => c.toUpperCase());

function renderValue(value: unknown, indent = ''): string[] {
  if (typeof value === 'string') return value.trim() ? [`${indent}${value.trim()}`] : [];
  if (typeof value === 'number' || typeof value === 'boolean') return [`${indent}${String(value)}`];
  if (Array.isArray(value)) return value.flatMap((v) => renderValue(v, `${indent}- `));
  if (value && typeof value === 'object') {
    return Object.entries(value as Record<string, unknown>).flatMap(([k, v]) => {
      const lines = renderValue(v);
      return lines.length ? [`${indent}${label(k)}: ${lines.join('; ')}`] : [];
    });
  }
  return [];
}

export function describeSource(node: IndexableNode): { shape: string; sourceKind: string } {
  return {
    shape: typeof node.body.shape === 'string' ? node.body.shape : '',
    sourceKind: typeof node.body.source_kind === 'string' ? node.body.source_kind : 'record',
  };
}

export function recordChunkSource(node: IndexableNode): ChunkSource {
  const { shape, sourceKind } = describeSource(node);
  const bodyLines = Object.entries(node.body)
    .filter(([k]) => !META_KEYS.has(k))
    .flatMap(([k, v]) => {
      const lines = renderValue(v);
      return lines.length ? [`${label(k)}: ${lines.join('\n')}`] : [];
    });
  const headingPath = Array.isArray(node.body.heading_path) ? node.body.heading_path.filter((h): h is string => typeof h === 'string') : [];
  return {
    title: node.title,
    headingPath,
    body: [node.prose, ...bodyLines].filter((s) => s.trim()).join('\n\n'),
    context: pathWords(pointerPath(node.body)),
    metadata: {
      node_type: node.node_type,
      collection_id: node.collection_id,
      shape,
      source_kind: sourceKind,
      tokenizer: TOKENIZER_VERSION,
    },
  };
}

/** The file a record was cut from (its pointer's `path`: a doc section's, a pushed file's). */
export function pointerPath(body: Record<string, unknown>): string | undefined {
  const pointer = body.pointer;
  const path = pointer && typeof pointer === 'object' ? (pointer as Record<string, unknown>).path : undefined;
  return typeof path === 'string' ? path : undefined;
}

/**
 * The words of a record's file path, for BM25 to read with its header: `docs/core/mempool.md`
 * → "core mempool", a docs pack's `cometbft:docs/guides/install.md` → "cometbft guides install".
 * Dropped, as they say nothing about the topic: the extension (the format), `docs` folders (the
 * documentation root every doc shares) and a README or index file's name (its folder's
 * overview: the folders name the topic). "" for a record with no path.
 */
export function pathWords(path: string | null | undefined): string {
  if (!path) return '';
  const parts = path.split(/[/:]+/).filter((p) => p && p.toLowerCase() !== 'docs');
  const file = parts.pop()?.replace(/\.[A-Za-z0-9]+$/, '');
  if (file && !/^(readme|index)$/i.test(file)) parts.push(file);
  return parts
    .join(' ')
    .replace(/[_.-]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
}
