// The 5-minute sweep (docs/connectors.md, GitHub) that keeps a repository whole when webhooks were missed:
// issue comments and review comments `since` their cursors, issues `since` the cursor (oldest
// first, so the cursor moves with each committed page), then pull requests by `updated` newest
// first until one older than the cursor (the cursor moves with the last page's commit), each PR
// with its files and its reviews. The first page of each list is asked with its stored ETag: a
// 304 means nothing changed and costs no rate limit.
import { keepComment, loadComments } from '../comments.js';
import { writeItems, addReports, emptyReport, type ItemsReport } from '../items.js';
import type { ConnectorDeps, SweepReport } from '../kind.js';
import { readState, writeState, type ConnectorRow } from '../store.js';
import type { GithubClient, GithubResponse } from './client.js';
import {
  commentTime,
  externalId,
  issueRecord,
  pullRecord,
  reviewBody,
  reviewCommentBody,
  type GithubIssueLike,
  type GithubPullLike,
} from './records.js';
import { githubTarget, requireClient, type GithubTarget } from './scope.js';

interface StoredEtag {
  url: string;
  etag: string;
}

const etagFor = (stored: unknown, url: string): string | undefined => {
  const s = stored as StoredEtag | undefined;
  return s && s.url === url ? s.etag : undefined;
};

/** The comments kept for an item (by webhooks and the comments pass). */
const comments = (deps: ConnectorDeps, target: GithubTarget, number: number) =>
  loadComments(deps.sql, { workspaceId: target.scope.workspaceId, kind: 'github', externalId: externalId(target.repo, number) });

const later = (a: string | undefined, b: string) => (!a || Date.parse(b) > Date.parse(a) ? b : a);

export async function sweepGithub(deps: ConnectorDeps, connector: ConnectorRow): Promise<SweepReport> {
  const client = requireClient(deps);
  const target = await githubTarget(deps, connector);
  const state = await readState(deps.sql, connector.id);
  // Comments first: a comment bumps its issue's or PR's updated_at, so the two passes after this
  // one rewrite those records with the comments in (no extra call per comment).
  const comments = await sweepCommentList(deps, client, target, state, ISSUE_COMMENTS);
  const reviewComments = await sweepCommentList(deps, client, target, state, REVIEW_COMMENTS);
  const issues = await sweepIssues(deps, client, target, state);
  const pulls = await sweepPulls(deps, client, target, state);
  const passes = [comments, reviewComments, issues, pulls];
  return { items: passes.map((p) => p.items).reduce(addReports), notModified: passes.reduce((n, p) => n + p.notModified, 0) };
}

interface GithubComment {
  id: number;
  body?: string | null;
  issue_url: string;
  updated_at: string;
  user?: { login?: string } | null;
}
interface GithubReviewComment {
  id: number;
  body?: string | null;
  pull_request_url: string;
  path?: string;
  updated_at: string;
  user?: { login?: string } | null;
}
interface GithubReview {
  id: number;
  body?: string | null;
  state?: string;
  submitted_at?: string | null;
  user?: { login?: string } | null;
}

interface CommentList<C> {
  /** The list under the repository, as `issues/comments`; asked `since` the state's `${name}_since`. */
  path: string;
  /** The state keys: `${name}_since` and `${name}_etag`. */
  name: string;
  /** The PR or issue number a comment belongs to. */
  numberOf: (c: C) => number;
  /** The comment id (prefixed by kind, so ids of two lists never meet) and the text the record shows. */
  idOf: (c: C) => string;
  bodyOf: (c: C) => string;
}

const ISSUE_COMMENTS: CommentList<GithubComment> = {
  path: 'issues/comments',
  name: 'comments',
  numberOf: (c) => Number(c.issue_url.match(/\/issues\/(\d+)$/)?.[1]),
  idOf: (c) => `comment-${c.id}`,
  bodyOf: (c) => c.body ?? '',
};
/** Review comments (on a PR's diff); one bumps its PR's updated_at, as a comment does. */
const REVIEW_COMMENTS: CommentList<GithubReviewComment> = {
  path: 'pulls/comments',
  name: 'review_comments',
  numberOf: (c) => Number(c.pull_request_url.match(/\/pulls\/(\d+)$/)?.[1]),
  idOf: (c) => `review-comment-${c.id}`,
  bodyOf: reviewCommentBody,
};

/**
 * Comments of one list `since` its cursor (oldest first), kept beside their items. The cursor is
 * written after the whole list is kept; a failure later in the sweep leaves the issue and PR
 * cursors behind, so the records that should show these comments are rewritten next time.
 */
async function sweepCommentList<C extends { updated_at: string; user?: { login?: string } | null }>(
  deps: ConnectorDeps,
  client: GithubClient,
  target: GithubTarget,
  state: Record<string, unknown>,
  list: CommentList<C>,
): Promise<SweepReport> {
  const sinceKey = `${list.name}_since`;
  const since = typeof state[sinceKey] === 'string' ? state[sinceKey] : undefined;
  const url = `repos/${target.repo}/${list.path}?sort=updated&direction=asc&per_page=100${since ? `&since=${encodeURIComponent(since)}` : ''}`;
  const report = emptyReport();
  let cursor = since;
  const first = await client.eachPage<C>(
    target.installationId,
    url,
    async (page) => {
      for (const c of page) {
        const number = list.numberOf(c);
        if (!Number.isInteger(number)) continue;
        const key = { workspaceId: target.scope.workspaceId, kind: 'github', externalId: externalId(target.repo, number) };
        const kinds = await keepComment(deps.sql, key, list.idOf(c), { author: c.user?.login ?? '', body: list.bodyOf(c) }, commentTime(c));
        report.secrets.push(...kinds.map((kind) => ({ external_id: key.externalId, kind, field: `comment ${list.idOf(c)}` })));
        cursor = later(cursor, c.updated_at);
      }
    },
    { etag: etagFor(state[`${list.name}_etag`], url) },
  );
  if (first?.status !== 304 && cursor && cursor !== since) await writeState(deps.sql, target.scope.connectorId, { [sinceKey]: cursor });
  return finish(deps, target, first, url, `${list.name}_etag`, report);
}

/** A PR's reviews (GitHub lists them per PR only), kept beside it before its record is written. */
async function keepReviews(
  deps: ConnectorDeps,
  client: GithubClient,
  target: GithubTarget,
  number: number,
  report: ItemsReport,
): Promise<void> {
  const key = { workspaceId: target.scope.workspaceId, kind: 'github', externalId: externalId(target.repo, number) };
  await client.eachPage<GithubReview>(target.installationId, `repos/${target.repo}/pulls/${number}/reviews?per_page=100`, async (page) => {
    for (const r of page) {
      // A review with no words and no verdict (the shell of its review comments) says nothing.
      if (!r.body?.trim() && (!r.state || r.state.toLowerCase() === 'commented')) continue;
      const kinds = await keepComment(
        deps.sql,
        key,
        `review-${r.id}`,
        { author: r.user?.login ?? '', body: reviewBody(r) },
        commentTime(r),
      );
      report.secrets.push(...kinds.map((kind) => ({ external_id: key.externalId, kind, field: `review ${r.id}` })));
    }
  });
}

async function sweepIssues(
  deps: ConnectorDeps,
  client: GithubClient,
  target: GithubTarget,
  state: Record<string, unknown>,
): Promise<SweepReport> {
  const since = typeof state.issues_since === 'string' ? state.issues_since : undefined;
  const url = `repos/${target.repo}/issues?state=all&sort=updated&direction=asc&per_page=100${since ? `&since=${encodeURIComponent(since)}` : ''}`;
  let report = emptyReport();
  let cursor = since;
  const first = await client.eachPage<GithubIssueLike>(
    target.installationId,
    url,
    async (page) => {
      // The list holds PRs too (with a pull_request key): the PR pass writes those, with files.
      const records = [];
      for (const i of page.filter((x) => !x.pull_request))
        records.push(issueRecord(target.repo, i, await comments(deps, target, i.number)));
      for (const i of page) cursor = later(cursor, i.updated_at);
      report = addReports(
        report,
        await writeItems(deps.sql, target.scope, records, {
          summary: `github sweep of ${target.repo} issues`,
          state: cursor ? { issues_since: cursor } : {},
        }),
      );
    },
    { etag: etagFor(state.issues_etag, url) },
  );
  return finish(deps, target, first, url, 'issues_etag', report);
}

async function sweepPulls(
  deps: ConnectorDeps,
  client: GithubClient,
  target: GithubTarget,
  state: Record<string, unknown>,
): Promise<SweepReport> {
  const since = typeof state.pulls_since === 'string' ? state.pulls_since : undefined;
  const url = `repos/${target.repo}/pulls?state=all&sort=updated&direction=desc&per_page=100`;
  let report = emptyReport();
  let cursor = since;
  const first = await client.eachPage<GithubPullLike>(
    target.installationId,
    url,
    async (page, res) => {
      const fresh = since ? page.filter((p) => Date.parse(p.updated_at) >= Date.parse(since)) : page;
      const done = fresh.length < page.length || !res.next;
      const records = [];
      for (const pr of fresh) {
        await keepReviews(deps, client, target, pr.number, report);
        records.push(
          pullRecord(
            target.repo,
            pr,
            await client.pullFiles(target.installationId, target.repo, pr.number),
            await comments(deps, target, pr.number),
          ),
        );
        cursor = later(cursor, pr.updated_at);
      }
      // Newest first: the cursor may move only once every page down to it has committed.
      report = addReports(
        report,
        await writeItems(deps.sql, target.scope, records, {
          summary: `github sweep of ${target.repo} pull requests`,
          state: done && cursor ? { pulls_since: cursor } : {},
        }),
      );
      return !done;
    },
    { etag: etagFor(state.pulls_etag, url) },
  );
  return finish(deps, target, first, url, 'pulls_etag', report);
}

/** Keeps the first page's ETag once the whole list is written (a 304 then means the same list). */
async function finish(
  deps: ConnectorDeps,
  target: GithubTarget,
  first: GithubResponse<unknown[]> | undefined,
  url: string,
  key: string,
  items: ItemsReport,
): Promise<SweepReport> {
  if (first?.status === 304) return { items, notModified: 1 };
  if (first?.etag) await writeState(deps.sql, target.scope.connectorId, { [key]: { url, etag: first.etag } });
  return { items, notModified: 0 };
}
