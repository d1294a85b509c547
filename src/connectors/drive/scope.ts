// The Drive connector's client and collection.
import { AppError } from '../../errors.js';
import type { ItemScope } from '../items.js';
import type { ConnectorDeps } from '../kind.js';
import { connectorScope } from '../scope.js';
import type { ConnectorRow } from '../store.js';
import type { DriveClient } from './client.js';

export function requireDrive(deps: ConnectorDeps): DriveClient {
  if (!deps.drive)
    throw new AppError('unavailable', 'Google Drive is not configured: set GOOGLE_SERVICE_ACCOUNT_FILE (or GOOGLE_ACCESS_TOKEN)');
  return deps.drive;
}

export const driveScope = (deps: ConnectorDeps, connector: ConnectorRow): Promise<ItemScope> =>
  connectorScope(deps, connector, {
    name: 'Google Drive',
    goal: 'Google Docs and text files shared with the service account, kept in step by the Drive connector.',
  });
