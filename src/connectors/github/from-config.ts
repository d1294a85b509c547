// The GitHub connector's secrets, read from their files or env once at start-up, and the client
// built from them. A missing piece leaves that part off (no client: sweeps and PR files fail
// with a clear message; no webhook secret: the webhook answers 503); a file that cannot be read
// stops start-up, naming the file, never its content.
import type { Config } from '../../config/environment.js';
import { GithubClient } from './client.js';
import type { Log } from '../../lib/log.js';
import { readSecret, readSecretFile } from '../../config/secret-file.js';

export function githubWebhookSecret(config: Config): string | undefined {
  return readSecret(config.github.webhookSecret, 'GITHUB_WEBHOOK_SECRET_FILE');
}

export function makeGithubClient(config: Config, log: Log): GithubClient | undefined {
  const { appId, privateKey, apiUrl } = config.github;
  if (!appId || !privateKey) {
    if (appId || privateKey)
      log.warn(
        'the GitHub App needs both GITHUB_APP_ID and GITHUB_APP_PRIVATE_KEY_FILE (or GITHUB_APP_PRIVATE_KEY): the GitHub connector is off',
      );
    return undefined;
  }
  const pem = 'file' in privateKey ? readSecretFile(privateKey.file, 'GITHUB_APP_PRIVATE_KEY_FILE') : privateKey.pem;
  return new GithubClient({ apiUrl, appId, privateKey: pem });
}
