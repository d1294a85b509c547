// Policies on every write: deterministic ones (allowed types, required fields) block; judge
// policies ask the PolicyJudge and warn or block as the policy says. Every verdict comes back.
import type { Policy } from '../db/schema.js';
import type { PolicyJudge } from '../providers/judge.js';
import type { CollectionView } from './collections.js';
import type { Verdict } from './verdicts.js';

export interface RecordDraft {
  target: string;
  collection: CollectionView;
  node_type: string;
  title: string;
  prose: string;
  body: Record<string, unknown>;
}

const appliesTo = (p: Policy, nodeType: string) => !p.node_types || p.node_types.includes(nodeType);

function fieldPresent(draft: RecordDraft, field: string): boolean {
  const value =
    field === 'title'
      ? draft.title
      : field === 'prose'
        ? draft.prose
        : field.startsWith('body.')
          ? pick(draft.body, field.slice(5))
          : pick(draft.body, field);
  if (value === undefined || value === null) return false;
  if (typeof value === 'string') return value.trim().length > 0;
  if (Array.isArray(value)) return value.length > 0;
  return true;
}

function pick(obj: Record<string, unknown>, dotted: string): unknown {
  return dotted
    .split('.')
    .reduce<unknown>((acc, k) => (acc && typeof acc === 'object' ? (acc as Record<string, unknown>)[k] : undefined), obj);
}

export function deterministicVerdicts(draft: RecordDraft): Verdict[] {
  const { collection } = draft;
  const verdicts: Verdict[] = [];
  const allowed = collection.allowed_types.includes(draft.node_type);
  verdicts.push({
    policy: 'allowed-types',
    target: draft.target,
    outcome: allowed ? 'pass' : 'block',
    reason: allowed
      ? `${draft.node_type} is allowed in ${collection.slug}`
      : `collection ${collection.slug} (template ${collection.template}) accepts ${collection.allowed_types.join(', ')}, not ${draft.node_type}`,
  });
  for (const p of collection.policies) {
    if (p.kind !== 'required_fields' || !appliesTo(p, draft.node_type)) continue;
    const missing = p.fields.filter((f) => !fieldPresent(draft, f));
    verdicts.push({
      policy: p.id,
      target: draft.target,
      outcome: missing.length ? 'block' : 'pass',
      reason: missing.length ? `a ${draft.node_type} in ${collection.slug} needs ${missing.join(', ')}` : 'required fields present',
    });
  }
  return verdicts;
}

export async function judgedVerdicts(judge: PolicyJudge, draft: RecordDraft): Promise<Verdict[]> {
  const policies = draft.collection.policies.filter(
    (p): p is Extract<Policy, { kind: 'judge' }> => p.kind === 'judge' && appliesTo(p, draft.node_type),
  );
  return Promise.all(
    policies.map(async (p): Promise<Verdict> => {
      try {
        const answer = await judge.judge({
          policy: p.text,
          collection: draft.collection.slug,
          record: { node_type: draft.node_type, title: draft.title, prose: draft.prose, body: draft.body },
        });
        if (!answer)
          return { policy: p.id, target: draft.target, outcome: 'not_judged', reason: 'no judge is configured (set ANTHROPIC_API_KEY)' };
        return { policy: p.id, target: draft.target, outcome: answer.violates ? p.action : 'pass', reason: answer.reason };
      } catch (err) {
        return { policy: p.id, target: draft.target, outcome: 'not_judged', reason: `the judge failed: ${(err as Error).message}` };
      }
    }),
  );
}
