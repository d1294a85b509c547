// The Notion client, built once at start-up from the environment. Without NOTION_TOKEN the
// connector is off (its ticks fail with a clear message in its status).
import type { Config } from '../../config/environment.js';
import { NotionClient } from './client.js';

export function makeNotionClient(config: Config): NotionClient | undefined {
  const { apiUrl, token, requestsPerSecond } = config.notion;
  return token ? new NotionClient({ apiUrl, token, requestsPerSecond }) : undefined;
}
