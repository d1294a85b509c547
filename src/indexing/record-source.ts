// What of a record gets indexed: its title, heading path (for doc sections), prose and the
// text fields of its body (a decision's question and rejected alternatives are worth finding),
// with the metadata that is part of each chunk's content hash.
import type { ChunkSource } from './chunker.js';
import { TOKENIZER_VERSION } from '../text/tokenize.js';
import { cutText } from '../lib/well-formed.js';

export interface IndexableNode {
  id: string;
  workspace_id: string;
  collection_id: string;
  node_type: string;
  title: string;
  prose: string;
  body: Record<string, unknown>;
}

/** A heading path's entries, and each one's characters, that go into a record's chunks (a doc section has two, of 300 at most). */
const MAX_HEADINGS = 6;
const MAX_HEADING_CHARS = 300;
/** A pointer's path's characters that go into its chunks' search words (a pack's paths hold 500). */
const MAX_POINTER_PATH_CHARS = 500;

/** Body keys that describe where a record came from rather than what it says. */
const META_KEYS = new Set(['shape', 'source_kind', 'source_type', 'pointer', 'heading_path', 'section_key', 'content_hash', 'adr_status']);

const label = (key: string) => key.replace(/[_-]+/g, ' ').replace(/^\w/, (c) => c.toUpperCase());

/**
 * The body's text as indexed is cut here: a body holds 256 KiB as JSON, and its text as rendered
 * (keys as labels, list items on lines of their own) about as much.
 */
const MAX_BODY_TEXT_CHARS = 300_000;

/**
 * A body value as lines. A list's items are marked "- " once however deep the list is: a mark per
 * level turned each 2-byte leaf of 28 nested lists into a 61-character line, and one 256 KiB body
 * into 8.1 M characters and 5,956 chunks (a hostile review's agent record).
 */
function renderValue(value: unknown, indent = ''): string[] {
  if (typeof value === 'string') return value.trim() ? [`${indent}${value.trim()}`] : [];
  if (typeof value === 'number' || typeof value === 'boolean') return [`${indent}${String(value)}`];
  if (Array.isArray(value)) return value.flatMap((v) => renderValue(v, '- '));
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
  // The heading path heads every chunk: bounded here, whoever wrote the body. A capture's 240 KB
  // heading path made 87 chunks of 20 MB, and 120 of them ran the drain out of memory at every
  // start (a hostile review).
  const headingPath = Array.isArray(node.body.heading_path)
    ? node.body.heading_path
        .filter((h): h is string => typeof h === 'string')
        .slice(0, MAX_HEADINGS)
        .map((h) => cutText(h, MAX_HEADING_CHARS))
    : [];
  const path = pointerPath(node.body);
  return {
    title: node.title,
    headingPath,
    body: [node.prose, cutText(bodyLines.join('\n\n'), MAX_BODY_TEXT_CHARS)].filter((s) => s.trim()).join('\n\n'),
    context: pointerPathWords(path),
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
 * The words of a record's pointer path that go into its chunks, its first 500 characters': the
 * drain's, and the start-up catch-up's and repair sweep's, which rebuild points from doco.chunks
 * (stored-chunk.ts). Those read the path whole, and one record's 250 KB path made 3.0 M BM25
 * terms there against 21k in the drain, and different search answers (a hostile review).
 */
export const pointerPathWords = (path: string | null | undefined): string =>
  pathWords(typeof path === 'string' ? cutText(path, MAX_POINTER_PATH_CHARS) : undefined);

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
