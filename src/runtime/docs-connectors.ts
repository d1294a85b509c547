// The Notion and Drive clients, built once at start-up from the environment. A connector whose
// credentials are absent is off (its ticks fail with a clear message in its status); a key file
// that cannot be read or parsed stops start-up, naming the file, never its content.
import type { Config } from '../config.js';
import { DriveClient } from '../connectors/drive/client.js';
import { parseServiceAccount } from '../connectors/drive/service-account.js';
import { NotionClient } from '../connectors/notion/client.js';
import { readSecretFile } from './secret-file.js';
import type { Log } from './log.js';

export function makeNotionClient(config: Config): NotionClient | undefined {
  const { apiUrl, token, requestsPerSecond } = config.notion;
  return token ? new NotionClient({ apiUrl, token, requestsPerSecond }) : undefined;
}

export function makeDriveClient(config: Config, log: Log): DriveClient | undefined {
  const { apiUrl, tokenUrl, serviceAccountFile, accessToken } = config.drive;
  if (serviceAccountFile) {
    if (accessToken) log.warn('both GOOGLE_SERVICE_ACCOUNT_FILE and GOOGLE_ACCESS_TOKEN are set: the service account is used');
    const account = parseServiceAccount(readSecretFile(serviceAccountFile, 'GOOGLE_SERVICE_ACCOUNT_FILE'), `GOOGLE_SERVICE_ACCOUNT_FILE (${serviceAccountFile})`);
    return new DriveClient({ apiUrl, tokenUrl, auth: { serviceAccount: account } });
  }
  return accessToken ? new DriveClient({ apiUrl, tokenUrl, auth: { accessToken } }) : undefined;
}
