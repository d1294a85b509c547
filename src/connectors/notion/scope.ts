// The Notion connector's client and collection.
import { AppError } from '../../errors.js';
import type { ItemScope } from '../items.js';
import type { ConnectorDeps } from '../kind.js';
import { connectorScope } from '../scope.js';
import type { ConnectorRow } from '../store.js';
import type { NotionClient } from './client.js';

export function requireNotion(deps: ConnectorDeps): NotionClient {
  if (!deps.notion) throw new AppError('unavailable', 'the Notion integration is not configured: set NOTION_TOKEN');
  return deps.notion;
}

export const notionScope = (deps: ConnectorDeps, connector: ConnectorRow): Promise<ItemScope> =>
  connectorScope(deps, connector, {
    name: 'Notion',
    goal: 'Pages shared with the Notion integration, kept in step by the Notion connector.',
  });
