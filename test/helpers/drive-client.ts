// The real Drive client pointed at a loopback FakeDrive, signing in with the fake's service
// account key: what the Drive tests sweep through.
import { DriveClient } from '../../src/connectors/drive/client.js';
import { parseServiceAccount } from '../../src/connectors/drive/service-account.js';
import type { RetryOptions } from '../../src/lib/retry.js';
import type { FakeDrive, serviceAccountKey } from './fake-drive.js';

export function driveClientFor(
  fake: FakeDrive,
  origin: string,
  key: ReturnType<typeof serviceAccountKey>,
  retry: RetryOptions = { maxAttempts: 1 },
): DriveClient {
  return new DriveClient({
    apiUrl: origin,
    tokenUrl: fake.tokenUrl,
    auth: { serviceAccount: parseServiceAccount(key.json, 'test key') },
    retry,
  });
}
