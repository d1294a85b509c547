// The GitHub connector kind: one row per (installation, repository), swept every 5 minutes.
import * as v from 'valibot';
import { parseInput } from '../../lib/validate.js';
import type { ConnectorKind } from '../kind.js';
import { handleGithubDelivery } from './events.js';
import { sweepGithub } from './sweep.js';

const RepoSchema = v.pipe(
  v.string(),
  v.trim(),
  v.regex(/^[A-Za-z0-9-]{1,39}\/[A-Za-z0-9._-]{1,100}$/, 'must be OWNER/NAME, as in octo-org/billing'),
  v.transform((s) => s.toLowerCase()),
);

const AddSchema = v.strictObject({
  kind: v.literal('github'),
  installation_id: v.pipe(
    v.union(
      [v.pipe(v.number(), v.integer(), v.minValue(1)), v.pipe(v.string(), v.regex(/^[1-9][0-9]{0,18}$/))],
      'must be a GitHub App installation id (a positive whole number)',
    ),
    v.transform(String),
  ),
  repo: RepoSchema,
  collection: v.optional(v.pipe(v.string(), v.regex(/^[a-z0-9][a-z0-9-]{0,62}$/, 'must be a collection slug'))),
});

/** `octo-org/billing` → `github-octo-org-billing` (63 characters at most). */
export function repoCollectionSlug(repo: string): string {
  return `github-${repo.toLowerCase().replace(/[^a-z0-9]+/g, '-')}`.replace(/-+$/, '').slice(0, 63).replace(/-+$/, '');
}

export const githubKind: ConnectorKind = {
  kind: 'github',
  sweepSchedule: '*/5 * * * *',
  parseAdd(raw) {
    const input = parseInput(AddSchema, raw, 'github connector');
    return {
      kind: 'github',
      routingKey: input.installation_id,
      target: input.repo,
      config: { repo: input.repo, collection: input.collection ?? repoCollectionSlug(input.repo) },
    };
  },
  sweep: sweepGithub,
  handleDelivery: handleGithubDelivery,
};
