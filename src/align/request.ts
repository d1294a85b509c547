// What the alignment scan is asked (POST /api/v1/align, and the CLI when a server is up): the
// changed files, each with its unified-diff hunks when known, and the revisions compared.
import * as v from 'valibot';

/** A changed file's patch is read up to this many characters: enough for its names, bounded for the request. */
export const MAX_PATCH_CHARS = 256 * 1024;
export const MAX_CHANGED_FILES = 500;

const RepoPath = v.pipe(
  v.string(),
  v.trim(),
  v.minLength(1, 'must not be empty'),
  v.maxLength(1000),
  v.check((p) => !/[\0\n\r]/.test(p), 'must be one repository-relative path'),
  v.transform((p) => p.replace(/^(\.\/)+/, '')),
);
const Revision = v.nullish(v.pipe(v.string(), v.trim(), v.minLength(1), v.maxLength(200)));

export const AlignRequestSchema = v.strictObject({
  changed: v.pipe(
    v.array(
      v.strictObject({
        path: RepoPath,
        patch: v.optional(v.pipe(v.string(), v.maxLength(MAX_PATCH_CHARS, `must be at most ${MAX_PATCH_CHARS} characters`))),
      }),
    ),
    v.minLength(1, 'must name at least one changed file'),
    v.maxLength(MAX_CHANGED_FILES, `must name at most ${MAX_CHANGED_FILES} files`),
  ),
  base: Revision,
  head: Revision,
});
export type AlignRequest = v.InferOutput<typeof AlignRequestSchema>;
