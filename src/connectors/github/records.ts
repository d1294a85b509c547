// A pull request or issue as the record it becomes (docs/connectors.md): title = its title, prose = a
// header naming `owner/repo#N` (so the touches trigger indexes it and `#N`), its body, and for a
// PR the list of changed files (each becomes a touch); body.source_kind = "github" with the
// pointer {repo, number, url, state}. Webhook payloads and REST answers share these fields.
import { commentsSection, type ItemComment } from '../comments.js';
import type { RecordShape } from '../../graph/record-shapes.js';
import type { ItemContent } from '../items.js';

export interface GithubIssueLike {
  number: number;
  title: string;
  body?: string | null;
  state: string;
  html_url: string;
  updated_at: string;
  labels?: ({ name?: string } | string)[];
  user?: { login?: string } | null;
  /** Present on an issue that is a pull request (the issues API lists both). */
  pull_request?: unknown;
}

export interface GithubPullLike extends GithubIssueLike {
  merged?: boolean;
  merged_at?: string | null;
  draft?: boolean;
  head?: { ref?: string };
  base?: { ref?: string };
}

/** Bodies are cut here: the record is for finding the item, the item itself stays on GitHub. */
const BODY_CHARS = 8_000;
/** Files listed in the prose; every one of them is also a touch. GitHub lists at most 3000. */
const FILES_LISTED = 3_000;
/**
 * Files declared as touches in body.touch_paths (sql/touches.sql takes them as paths as given):
 * prose extraction cannot tell `.github/workflows/ci.yml` or `bin/deploy` from words, the files
 * API can. Bounded so the body stays small.
 */
const TOUCH_PATHS = 1_000;

export const externalId = (repo: string, number: number) => `${repo}#${number}`;

/**
 * When GitHub last changed a comment, review comment or review: its `updated_at`, else (a
 * review, whose edit keeps it) its `submitted_at`; undefined when the payload carries neither, and
 * the comment is then kept unchecked (src/connectors/comments.ts).
 */
export function commentTime(c: { updated_at?: string | null; submitted_at?: string | null }): string | undefined {
  const at = Date.parse(c.updated_at ?? c.submitted_at ?? '');
  return Number.isNaN(at) ? undefined : new Date(at).toISOString();
}

/** A review comment as its PR's record shows it: on which file. */
export const reviewCommentBody = (c: { path?: string; body?: string | null }) => `${c.path ? `(on ${c.path}) ` : ''}${c.body ?? ''}`;
/** A review as its PR's record shows it: its verdict, then its words. */
export const reviewBody = (r: { state?: string; body?: string | null }) =>
  `${r.state && r.state.toLowerCase() !== 'commented' ? `(${r.state.toLowerCase()}) ` : ''}${r.body ?? ''}`;

export function pullState(pr: GithubPullLike): string {
  if (pr.merged || pr.merged_at) return 'merged';
  return pr.state;
}

const labelNames = (labels: GithubIssueLike['labels']) =>
  (labels ?? [])
    .map((l) => (typeof l === 'string' ? l : (l.name ?? '')))
    .filter(Boolean)
    .sort();

const cut = (text: string | null | undefined) => {
  const t = (text ?? '').trim();
  return t.length > BODY_CHARS ? `${t.slice(0, BODY_CHARS)}…` : t;
};

export function pullRecord(repo: string, pr: GithubPullLike, files: string[], comments: ItemComment[] = []): ItemContent {
  const state = pullState(pr);
  const listed = [...new Set(files)].sort().slice(0, FILES_LISTED);
  const prose = [
    `Pull request ${externalId(repo, pr.number)} (${pr.draft && state === 'open' ? 'draft' : state}) ${pr.html_url}`,
    pr.head?.ref && pr.base?.ref ? `Branch ${pr.head.ref} into ${pr.base.ref}.` : '',
    cut(pr.body),
    listed.length ? `Changed files:\n${listed.map((f) => `- ${f}`).join('\n')}` : '',
    commentsSection(comments),
  ]
    .filter(Boolean)
    .join('\n\n');
  return {
    externalId: externalId(repo, pr.number),
    title: pr.title,
    prose,
    body: {
      source_kind: 'github',
      shape: 'pullRequest' satisfies RecordShape,
      pointer: { repo, number: pr.number, url: pr.html_url, state },
      labels: labelNames(pr.labels),
      files_changed: files.length,
      touch_paths: listed.slice(0, TOUCH_PATHS),
    },
    meta: { repo, number: pr.number, is_pull: true, head_ref: pr.head?.ref ?? null, state },
    remoteUpdatedAt: pr.updated_at,
  };
}

export function issueRecord(repo: string, issue: GithubIssueLike, comments: ItemComment[] = []): ItemContent {
  const prose = [`Issue ${externalId(repo, issue.number)} (${issue.state}) ${issue.html_url}`, cut(issue.body), commentsSection(comments)]
    .filter(Boolean)
    .join('\n\n');
  return {
    externalId: externalId(repo, issue.number),
    title: issue.title,
    prose,
    body: {
      source_kind: 'github',
      shape: 'issue' satisfies RecordShape,
      pointer: { repo, number: issue.number, url: issue.html_url, state: issue.state },
      labels: labelNames(issue.labels),
    },
    meta: { repo, number: issue.number, is_pull: false, state: issue.state },
    remoteUpdatedAt: issue.updated_at,
  };
}
