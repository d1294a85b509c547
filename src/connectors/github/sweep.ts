// The 5-minute sweep (CONNECTORS.md §1) that keeps a repository whole when webhooks were missed:
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
import { externalId, issueRecord, pullRecord, reviewBody, reviewCommentBody, type GithubIssueLike, type GithubPullLike } from './records.js';
import { githubTarget, requireClient, type GithubTarget } from './scope.js';

interface StoredEtag { url: string; etag: string }

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
  const comments = await sweepComments(deps, client, target, state);
  const reviewComments = await sweepReviewComments(deps, client, target, state);
  const issues = await sweepIssues(deps, client, target, state);
  const pulls = await sweepPulls(deps, client, target, state);
  const passes = [comments, reviewComments, issues, pulls];
  return { items: passes.map((p) => p.items).reduce(addReports), notModified: passes.reduce((n, p) => n + p.notModified, 0) };
}

interface GithubComment { id: number; body?: string | null; issue_url: string; updated_at: string; user?: { login?: string } | null }
interface GithubReviewComment { id: number; body?: string | null; pull_request_url: string; path?: string; updated_at: string; user?: { login?: string } | null }
interface GithubReview { id: number; body?: string | null; state?: string; user?: { login?: string } | null }

/**
 * Issue and PR comments `since` the cursor (oldest first), kept beside their items. The cursor is
 * written after the whole list is kept; a failure later in the sweep leaves the issue and PR
 * cursors behind, so the records that should show these comments are rewritten next time.
 */
async function sweepComments(deps: ConnectorDeps, client: GithubClient, target: GithubTarget, state: Record<string, unknown>): Promise<SweepReport> {
  const since = typeof state.comments_since === 'string' ? state.comments_since : undefined;
  const url = `repos/${target.repo}/issues/comments?sort=updated&direction=asc&per_page=100${since ? `&since=${encodeURIComponent(since)}` : ''}`;
  const report = emptyReport();
  let cursor = since;
  const first = await client.eachPage<GithubComment>(target.installationId, url, async (page) => {
    for (const c of page) {
      const number = Number(c.issue_url.match(/\/issues\/(\d+)$/)?.[1]);
      if (!Number.isInteger(number)) continue;
      const key = { workspaceId: target.scope.workspaceId, kind: 'github', externalId: externalId(target.repo, number) };
      const kinds = await keepComment(deps.sql, key, `comment-${c.id}`, { author: c.user?.login ?? '', body: c.body ?? '' });
      report.secrets.push(...kinds.map((kind) => ({ external_id: key.externalId, kind, field: `comment comment-${c.id}` })));
      cursor = later(cursor, c.updated_at);
    }
  }, { etag: etagFor(state.comments_etag, url) });
  if (first?.status !== 304 && cursor && cursor !== since) await writeState(deps.sql, target.scope.connectorId, { comments_since: cursor });
  return finish(deps, target, first, url, 'comments_etag', report);
}

/**
 * Review comments (on a PR's diff) `since` their cursor, kept beside their PRs like comments; a
 * review comment bumps its PR's updated_at, so the pulls pass rewrites the record with it in.
 */
async function sweepReviewComments(deps: ConnectorDeps, client: GithubClient, target: GithubTarget, state: Record<string, unknown>): Promise<SweepReport> {
  const since = typeof state.review_comments_since === 'string' ? state.review_comments_since : undefined;
  const url = `repos/${target.repo}/pulls/comments?sort=updated&direction=asc&per_page=100${since ? `&since=${encodeURIComponent(since)}` : ''}`;
  const report = emptyReport();
  let cursor = since;
  const first = await client.eachPage<GithubReviewComment>(target.installationId, url, async (page) => {
    for (const c of page) {
      const number = Number(c.pull_request_url.match(/\/pulls\/(\d+)$/)?.[1]);
      if (!Number.isInteger(number)) continue;
      const key = { workspaceId: target.scope.workspaceId, kind: 'github', externalId: externalId(target.repo, number) };
      const kinds = await keepComment(deps.sql, key, `review-comment-${c.id}`, { author: c.user?.login ?? '', body: reviewCommentBody(c) });
      report.secrets.push(...kinds.map((kind) => ({ external_id: key.externalId, kind, field: `review comment ${c.id}` })));
      cursor = later(cursor, c.updated_at);
    }
  }, { etag: etagFor(state.review_comments_etag, url) });
  if (first?.status !== 304 && cursor && cursor !== since) await writeState(deps.sql, target.scope.connectorId, { review_comments_since: cursor });
  return finish(deps, target, first, url, 'review_comments_etag', report);
}

/** A PR's reviews (GitHub lists them per PR only), kept beside it before its record is written. */
async function keepReviews(deps: ConnectorDeps, client: GithubClient, target: GithubTarget, number: number, report: ItemsReport): Promise<void> {
  const key = { workspaceId: target.scope.workspaceId, kind: 'github', externalId: externalId(target.repo, number) };
  await client.eachPage<GithubReview>(target.installationId, `repos/${target.repo}/pulls/${number}/reviews?per_page=100`, async (page) => {
    for (const r of page) {
      // A review with no words and no verdict (the shell of its review comments) says nothing.
      if (!r.body?.trim() && (!r.state || r.state.toLowerCase() === 'commented')) continue;
      const kinds = await keepComment(deps.sql, key, `review-${r.id}`, { author: r.user?.login ?? '', body: reviewBody(r) });
      report.secrets.push(...kinds.map((kind) => ({ external_id: key.externalId, kind, field: `review ${r.id}` })));
    }
  });
}

async function sweepIssues(deps: ConnectorDeps, client: GithubClient, target: GithubTarget, state: Record<string, unknown>): Promise<SweepReport> {
  const since = typeof state.issues_since === 'string' ? state.issues_since : undefined;
  const url = `repos/${target.repo}/issues?state=all&sort=updated&direction=asc&per_page=100${since ? `&since=${encodeURIComponent(since)}` : ''}`;
  let report = emptyReport();
  let cursor = since;
  const first = await client.eachPage<GithubIssueLike>(target.installationId, url, async (page) => {
    // The list holds PRs too (with a pull_request key): the PR pass writes those, with files.
    const records = [];
    for (const i of page.filter((x) => !x.pull_request)) records.push(issueRecord(target.repo, i, await comments(deps, target, i.number)));
    for (const i of page) cursor = later(cursor, i.updated_at);
    report = addReports(report, await writeItems(deps.sql, target.scope, records, { summary: `github sweep of ${target.repo} issues`, state: cursor ? { issues_since: cursor } : {} }));
  }, { etag: etagFor(state.issues_etag, url) });
  return finish(deps, target, first, url, 'issues_etag', report);
}

async function sweepPulls(deps: ConnectorDeps, client: GithubClient, target: GithubTarget, state: Record<string, unknown>): Promise<SweepReport> {
  const since = typeof state.pulls_since === 'string' ? state.pulls_since : undefined;
  const url = `repos/${target.repo}/pulls?state=all&sort=updated&direction=desc&per_page=100`;
  let report = emptyReport();
  let cursor = since;
  const first = await client.eachPage<GithubPullLike>(target.installationId, url, async (page, res) => {
    const fresh = since ? page.filter((p) => Date.parse(p.updated_at) >= Date.parse(since)) : page;
    const done = fresh.length < page.length || !res.next;
    const records = [];
    for (const pr of fresh) {
      await keepReviews(deps, client, target, pr.number, report);
      records.push(pullRecord(target.repo, pr, await client.pullFiles(target.installationId, target.repo, pr.number), await comments(deps, target, pr.number)));
      cursor = later(cursor, pr.updated_at);
    }
    // Newest first: the cursor may move only once every page down to it has committed.
    report = addReports(report, await writeItems(deps.sql, target.scope, records, { summary: `github sweep of ${target.repo} pull requests`, state: done && cursor ? { pulls_since: cursor } : {} }));
    return !done;
  }, { etag: etagFor(state.pulls_etag, url) });
  return finish(deps, target, first, url, 'pulls_etag', report);
}

/** Keeps the first page's ETag once the whole list is written (a 304 then means the same list). */
async function finish(deps: ConnectorDeps, target: GithubTarget, first: GithubResponse<unknown[]> | undefined, url: string, key: string, items: ItemsReport): Promise<SweepReport> {
  if (first?.status === 304) return { items, notModified: 1 };
  if (first?.etag) await writeState(deps.sql, target.scope.connectorId, { [key]: { url, etag: first.etag } });
  return { items, notModified: 0 };
}
