// One GitHub webhook delivery → records: a pull_request event rewrites its PR's record (with its
// changed files from the files API), an issues event its issue's (deleted retires it), a push
// re-reads the open PRs whose head branch it moved, and a comment, review or review comment joins
// its PR's or issue's record text. Other events and actions change nothing.
import { dropComment, keepComment, loadComments, type CommentKey } from '../comments.js';
import type { DeliveryRow } from '../deliveries.js';
import { addReports, emptyReport, findItemsByMeta, retireItem, writeItems, type ItemsReport } from '../items.js';
import type { ConnectorDeps } from '../kind.js';
import type { ConnectorRow } from '../store.js';
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
import { alignPush, type PushAlignEvent } from './push-align.js';
import { githubTarget, requireClient, type GithubTarget } from './scope.js';

interface PullRequestEvent {
  action?: string;
  pull_request?: GithubPullLike;
}
interface IssuesEvent {
  action?: string;
  issue?: GithubIssueLike;
}
interface PushEvent {
  ref?: string;
  deleted?: boolean;
}
interface Comment {
  id?: number;
  body?: string | null;
  state?: string;
  user?: { login?: string } | null;
  /** A comment's and a review comment's; a review carries only submitted_at. */
  updated_at?: string | null;
  submitted_at?: string | null;
}
interface IssueCommentEvent {
  action?: string;
  issue?: GithubIssueLike;
  comment?: Comment;
}
interface ReviewEvent {
  action?: string;
  pull_request?: GithubPullLike;
  review?: Comment;
}
interface ReviewCommentEvent {
  action?: string;
  pull_request?: GithubPullLike;
  comment?: Comment & { path?: string };
}

export async function handleGithubDelivery(deps: ConnectorDeps, connector: ConnectorRow, delivery: DeliveryRow): Promise<ItemsReport> {
  const target = await githubTarget(deps, connector);
  const summary = `github ${delivery.event} delivery ${delivery.delivery_id}`;
  switch (delivery.event) {
    case 'pull_request': {
      const pr = (delivery.payload as PullRequestEvent).pull_request;
      return pr ? writePull(deps, target, pr, summary) : emptyReport();
    }
    case 'issues': {
      const { action, issue } = delivery.payload as IssuesEvent;
      if (!issue || issue.pull_request) return emptyReport();
      if (action === 'deleted') return retireItem(deps.sql, target.scope, externalId(target.repo, issue.number), summary);
      return writeIssue(deps, target, issue, summary);
    }
    case 'push':
      // Then the alignment scan, when the push moved the default branch (push-align.ts).
      return addReports(
        await pushed(deps, target, delivery.payload as PushEvent, summary),
        await alignPush(deps, target, delivery.payload as PushAlignEvent, summary),
      );
    case 'issue_comment':
      return commented(deps, target, delivery.payload as IssueCommentEvent, summary);
    case 'pull_request_review':
      return reviewed(deps, target, delivery.payload as ReviewEvent, summary);
    case 'pull_request_review_comment':
      return reviewCommented(deps, target, delivery.payload as ReviewCommentEvent, summary);
    default:
      return emptyReport();
  }
}

const commentKey = (target: GithubTarget, number: number): CommentKey => ({
  workspaceId: target.scope.workspaceId,
  kind: 'github',
  externalId: externalId(target.repo, number),
});

/** Writes a PR's record with its changed files (read from the files API now) and its comments. */
export async function writePull(deps: ConnectorDeps, target: GithubTarget, pr: GithubPullLike, summary: string): Promise<ItemsReport> {
  const files = await requireClient(deps).pullFiles(target.installationId, target.repo, pr.number);
  const comments = await loadComments(deps.sql, commentKey(target, pr.number));
  return writeItems(deps.sql, target.scope, [pullRecord(target.repo, pr, files, comments)], { summary });
}

export async function writeIssue(deps: ConnectorDeps, target: GithubTarget, issue: GithubIssueLike, summary: string): Promise<ItemsReport> {
  const comments = await loadComments(deps.sql, commentKey(target, issue.number));
  return writeItems(deps.sql, target.scope, [issueRecord(target.repo, issue, comments)], { summary });
}

/** A push moves a branch: the open PRs with that head branch get their current files. */
async function pushed(deps: ConnectorDeps, target: GithubTarget, push: PushEvent, summary: string): Promise<ItemsReport> {
  const branch = push.ref?.startsWith('refs/heads/') ? push.ref.slice('refs/heads/'.length) : undefined;
  if (!branch || push.deleted) return emptyReport();
  const prs = await findItemsByMeta(deps.sql, target.scope.workspaceId, 'github', {
    repo: target.repo,
    is_pull: true,
    head_ref: branch,
    state: 'open',
  });
  let report = emptyReport();
  for (const item of prs) report = addReports(report, await refreshPull(deps, target, Number(item.meta.number), summary));
  return report;
}

async function refreshPull(deps: ConnectorDeps, target: GithubTarget, number: number, summary: string): Promise<ItemsReport> {
  const { json: pr } = await requireClient(deps).get<GithubPullLike>(target.installationId, `repos/${target.repo}/pulls/${number}`);
  return pr ? writePull(deps, target, pr, summary) : emptyReport();
}

/**
 * Keeps or drops the comment at the time GitHub last changed it (a deletion's payload carries the
 * comment as it last was: its tombstone refuses that time and older, docs/jobs.md); a comment
 * holding a credential is reported, not kept. The caller then rewrites its item.
 */
async function noteComment(
  deps: ConnectorDeps,
  target: GithubTarget,
  number: number,
  id: string,
  action: string | undefined,
  c: Comment,
  body: string,
): Promise<ItemsReport> {
  const key = commentKey(target, number);
  const report = emptyReport();
  const at = commentTime(c);
  if (action === 'deleted' || action === 'dismissed') await dropComment(deps.sql, key, id, at);
  else {
    const kinds = await keepComment(deps.sql, key, id, { author: c.user?.login ?? '', body }, at);
    report.secrets.push(...kinds.map((kind) => ({ external_id: key.externalId, kind, field: `comment ${id}` })));
  }
  return report;
}

async function commented(deps: ConnectorDeps, target: GithubTarget, e: IssueCommentEvent, summary: string): Promise<ItemsReport> {
  if (!e.issue || e.comment?.id === undefined) return emptyReport();
  const noted = await noteComment(deps, target, e.issue.number, `comment-${e.comment.id}`, e.action, e.comment, e.comment.body ?? '');
  // A PR's issue object lacks its files and merge state: read the PR itself.
  const written = e.issue.pull_request
    ? await refreshPull(deps, target, e.issue.number, summary)
    : await writeIssue(deps, target, e.issue, summary);
  return addReports(noted, written);
}

async function reviewed(deps: ConnectorDeps, target: GithubTarget, e: ReviewEvent, summary: string): Promise<ItemsReport> {
  if (!e.pull_request || e.review?.id === undefined) return emptyReport();
  const noted = await noteComment(deps, target, e.pull_request.number, `review-${e.review.id}`, e.action, e.review, reviewBody(e.review));
  return addReports(noted, await writePull(deps, target, e.pull_request, summary));
}

async function reviewCommented(deps: ConnectorDeps, target: GithubTarget, e: ReviewCommentEvent, summary: string): Promise<ItemsReport> {
  if (!e.pull_request || e.comment?.id === undefined) return emptyReport();
  const noted = await noteComment(
    deps,
    target,
    e.pull_request.number,
    `review-comment-${e.comment.id}`,
    e.action,
    e.comment,
    reviewCommentBody(e.comment),
  );
  return addReports(noted, await writePull(deps, target, e.pull_request, summary));
}
