// One GitHub webhook delivery → records: a pull_request event rewrites its PR's record (with its
// changed files from the files API), an issues event its issue's (deleted retires it), a push
// re-reads the open PRs whose head branch it moved. Other events and actions change nothing.
import type { DeliveryRow } from '../deliveries.js';
import { addReports, emptyReport, findItemsByMeta, retireItem, writeItems, type ItemsReport } from '../items.js';
import type { ConnectorDeps } from '../kind.js';
import type { ConnectorRow } from '../store.js';
import { externalId, issueRecord, pullRecord, type GithubIssueLike, type GithubPullLike } from './records.js';
import { githubTarget, requireClient, type GithubTarget } from './scope.js';

interface PullRequestEvent { action?: string; pull_request?: GithubPullLike }
interface IssuesEvent { action?: string; issue?: GithubIssueLike }
interface PushEvent { ref?: string; deleted?: boolean }

export async function handleGithubDelivery(deps: ConnectorDeps, connector: ConnectorRow, delivery: DeliveryRow): Promise<ItemsReport> {
  const target = await githubTarget(deps, connector);
  const summary = `github ${delivery.event} delivery ${delivery.delivery_id}`;
  if (delivery.event === 'pull_request') {
    const pr = (delivery.payload as PullRequestEvent).pull_request;
    if (!pr) return emptyReport();
    return writePull(deps, target, pr, summary);
  }
  if (delivery.event === 'issues') {
    const { action, issue } = delivery.payload as IssuesEvent;
    if (!issue || issue.pull_request) return emptyReport();
    if (action === 'deleted') return retireItem(deps.sql, target.scope, externalId(target.repo, issue.number), summary);
    return writeItems(deps.sql, target.scope, [issueRecord(target.repo, issue)], { summary });
  }
  if (delivery.event === 'push') return pushed(deps, target, delivery.payload as PushEvent, summary);
  return emptyReport();
}

/** Writes a PR's record with its changed files, read from the files API now. */
export async function writePull(deps: ConnectorDeps, target: GithubTarget, pr: GithubPullLike, summary: string): Promise<ItemsReport> {
  const files = await requireClient(deps).pullFiles(target.installationId, target.repo, pr.number);
  return writeItems(deps.sql, target.scope, [pullRecord(target.repo, pr, files)], { summary });
}

/** A push moves a branch: the open PRs with that head branch get their current files. */
async function pushed(deps: ConnectorDeps, target: GithubTarget, push: PushEvent, summary: string): Promise<ItemsReport> {
  const branch = push.ref?.startsWith('refs/heads/') ? push.ref.slice('refs/heads/'.length) : undefined;
  if (!branch || push.deleted) return emptyReport();
  const prs = await findItemsByMeta(deps.sql, target.scope.workspaceId, 'github', { repo: target.repo, is_pull: true, head_ref: branch, state: 'open' });
  let report = emptyReport();
  const client = requireClient(deps);
  for (const item of prs) {
    const { json: pr } = await client.get<GithubPullLike>(target.installationId, `repos/${target.repo}/pulls/${Number(item.meta.number)}`);
    if (!pr) continue;
    report = addReports(report, await writePull(deps, target, pr, summary));
  }
  return report;
}
