// The Google Drive client, built once at start-up from the environment. Without credentials the
// connector is off (its ticks fail with a clear message in its status); a key file that cannot
// be read or parsed stops start-up, naming the file, never its content.
import type { Config } from '../../config/environment.js';
import { readSecretFile } from '../../config/secret-file.js';
import type { Log } from '../../lib/log.js';
import { DriveClient } from './client.js';
import { parseServiceAccount } from './service-account.js';

export function makeDriveClient(config: Config, log: Log): DriveClient | undefined {
  const { apiUrl, tokenUrl, serviceAccountFile, accessToken } = config.drive;
  if (serviceAccountFile) {
    if (accessToken) log.warn('both GOOGLE_SERVICE_ACCOUNT_FILE and GOOGLE_ACCESS_TOKEN are set: the service account is used');
    const account = parseServiceAccount(
      readSecretFile(serviceAccountFile, 'GOOGLE_SERVICE_ACCOUNT_FILE'),
      `GOOGLE_SERVICE_ACCOUNT_FILE (${serviceAccountFile})`,
    );
    return new DriveClient({ apiUrl, tokenUrl, auth: { serviceAccount: account } });
  }
  return accessToken ? new DriveClient({ apiUrl, tokenUrl, auth: { accessToken } }) : undefined;
}
