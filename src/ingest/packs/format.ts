// The docs pack format (docs/docs-pack.md): its valibot schema, the limits a pack must keep,
// and the hash of the text as fetched that lets an unchanged pack skip everything but the fetch.
import { createHash } from 'node:crypto';
import * as v from 'valibot';
import { jsonObject } from '../../lib/validate.js';

/** Bumped when the way a pack becomes sections changes, so every pack is ingested again once. */
export const PACK_RULES_VERSION = 1;

export const PACK_LIMITS = {
  /** Bytes of the whole pack as fetched. */
  packBytes: 16 * 1024 * 1024,
  files: 5_000,
  pathChars: 500,
  fileChars: 1_000_000,
  /** JSON values in the whole pack (an array's or object's members each count): counted before it is parsed. */
  values: 500_000,
} as const;

// Every check of a pack carries its own message: valibot's defaults quote the value received,
// and a fetched pack's messages end up in last_error, which never holds the response's text.
export const PackCodeSchema = v.pipe(
  v.string('must be a string (a pack code)'),
  v.regex(
    /^[a-z0-9][a-z0-9_-]{0,62}$/,
    'must be a pack code: lowercase letters, digits, _ and -, at most 63 characters, starting with a letter or digit',
  ),
);

/** An http(s) URL the pack route can be appended to: no credentials, query or fragment. */
function isBaseUrl(s: string): boolean {
  try {
    const u = new URL(s);
    return (
      (u.protocol === 'http:' || u.protocol === 'https:') &&
      !u.username &&
      !u.password &&
      !u.search &&
      !u.hash &&
      !s.includes('?') &&
      !s.includes('#')
    );
  } catch {
    return false;
  }
}

/** A registering service's base URL (REST and NATS registrations alike), trailing slashes dropped. */
export const PackBaseUrlSchema = v.pipe(
  v.string(),
  v.trim(),
  v.maxLength(2000, 'must be at most 2000 characters'),
  v.check(isBaseUrl, 'must be an http(s) URL without credentials, query or fragment, such as http://billing.internal:8080'),
  v.transform((s) => s.replace(/\/+$/, '')),
);

/** A relative path with forward slashes, no empty, "." or ".." segment, ending in .md or .mdx. */
export function isPackPath(p: string): boolean {
  if (p.startsWith('/') || p.includes('\\') || !/\.mdx?$/.test(p)) return false;
  return p.split('/').every((seg) => seg !== '' && seg !== '.' && seg !== '..');
}

const PackFileSchema = v.object(
  {
    path: v.pipe(
      v.string('must be a string'),
      v.maxLength(PACK_LIMITS.pathChars, `must be at most ${PACK_LIMITS.pathChars} characters`),
      v.check(isPackPath, 'must be a relative path such as docs/guide.mdx (forward slashes, no "..", ending in .md or .mdx)'),
    ),
    content: v.pipe(
      v.string('must be a string'),
      v.maxLength(PACK_LIMITS.fileChars, `must be at most ${PACK_LIMITS.fileChars} characters`),
    ),
  },
  'must be an object {path, content}',
);

/** Unknown members are ignored (and left out of the hash), so a producer may add metadata. */
export const DocsPackSchema = v.pipe(
  v.object(
    {
      format: v.literal(1, 'must be 1 (the only pack format so far)'),
      code: PackCodeSchema,
      files: v.pipe(
        v.array(PackFileSchema, 'must be an array of files'),
        v.maxLength(PACK_LIMITS.files, `must hold at most ${PACK_LIMITS.files} files`),
      ),
      openapi: v.optional(jsonObject('must be a JSON object (an OpenAPI document)')),
    },
    'must be a JSON object {format, code, files, openapi?}',
  ),
  v.check((p) => new Set(p.files.map((f) => f.path)).size === p.files.length, 'files must not repeat a path'),
);
export type DocsPack = v.InferOutput<typeof DocsPackSchema>;

/**
 * sha256 over what decides the pack's sections: the rules version, the code and the pack's text
 * exactly as fetched. Compared before the text is parsed, so an unchanged pack costs its fetch
 * and this hash (a service that serialises the same pack differently is ingested again, and the
 * ingest finds its sections unchanged).
 */
export function packTextHash(code: string, text: string): string {
  return createHash('sha256').update(`doco-pack ${PACK_RULES_VERSION}\n${code}\n`, 'utf8').update(text, 'utf8').digest('hex');
}
