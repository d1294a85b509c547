// Where a GitHub connector's records go: its repository's collection (made from the
// documentation template on first use), written as the `github` principal.
import { AppError } from '../../errors.js';
import { ensurePrincipal } from '../../auth/workspaces.js';
import { ensureItemCollection, type ItemScope } from '../items.js';
import type { ConnectorDeps } from '../kind.js';
import type { ConnectorRow } from '../store.js';
import type { GithubClient } from './client.js';

export const GITHUB_PRINCIPAL = 'github';
const TEMPLATE = 'documentation';

export interface GithubTarget {
  scope: ItemScope;
  repo: string;
  installationId: string;
}

export async function githubTarget(deps: ConnectorDeps, connector: ConnectorRow): Promise<GithubTarget> {
  const repo = String(connector.config.repo ?? connector.target);
  const slug = String(connector.config.collection);
  const collection = await ensureItemCollection(
    deps.db,
    connector.workspace_id,
    slug,
    TEMPLATE,
    `Pull requests and issues of ${repo}, kept in step by the GitHub connector.`,
    `GitHub ${repo}`,
  );
  const principalId = await ensurePrincipal(deps.db, connector.workspace_id, GITHUB_PRINCIPAL, 'connector');
  return {
    repo,
    installationId: connector.routing_key,
    scope: { workspaceId: connector.workspace_id, principalId, kind: 'github', collectionId: collection.id, connectorId: connector.id },
  };
}

export function requireClient(deps: ConnectorDeps): GithubClient {
  if (!deps.github)
    throw new AppError(
      'unavailable',
      'the GitHub App is not configured: set GITHUB_APP_ID and GITHUB_APP_PRIVATE_KEY_FILE (or GITHUB_APP_PRIVATE_KEY)',
    );
  return deps.github;
}
