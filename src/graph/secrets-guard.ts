// The secrets guard on the write path: a changeset (capture, relate and doco_log are changesets
// too), a collection, or any named fields are scanned before anything is planned, judged or
// written, and a credential refuses the whole write with `secret_detected` (422). The error names
// the kind and the place — operation, field, line — and never the value, not even a prefix.
import { AppError } from '../errors.js';
import type { ChangesetInput } from './schemas.js';
import { SECRET_LABELS, type SecretKind } from '../text/secrets/detector.js';
import { findSecretsInFields, type FieldFinding } from '../text/secrets/fields.js';

export interface SecretPlace {
  /** The operation's index in the changeset, for findings inside an operation. */
  operation?: number;
  op?: string;
  field: string;
  kind: SecretKind;
  /** What the kind is, in words: "a GitHub token". */
  label: string;
  line?: number;
  column?: number;
}

const placed = (findings: FieldFinding[], at: { operation?: number; op?: string } = {}): SecretPlace[] =>
  findings.map((f) => ({ ...at, ...f, label: SECRET_LABELS[f.kind] }));

/** Every credential in a changeset's stored text: its summary and each operation's title, prose and body. */
export function secretsInChangeset(input: ChangesetInput): SecretPlace[] {
  const found = placed(findSecretsInFields({ summary: input.summary }));
  input.operations.forEach((op, i) => {
    const at = { operation: i, op: op.op };
    if (op.op === 'create' || op.op === 'supersede')
      found.push(...placed(findSecretsInFields({ title: op.title, prose: op.prose, body: op.body }), at));
    else if (op.op === 'append') found.push(...placed(findSecretsInFields({ prose: op.prose }), at));
  });
  return found;
}

function describePlace(p: SecretPlace): string {
  const op = p.operation === undefined ? '' : `operations[${p.operation}] (${p.op}): `;
  const line = p.line === undefined ? '' : ` line ${p.line}`;
  return `${op}${p.field}${line} holds ${p.label} (${p.kind})`;
}

/** Throws `secret_detected` listing every place, when there is one; `what` prefixes the message ("collection"). */
export function refuseSecrets(places: SecretPlace[], what?: string): void {
  if (!places.length) return;
  const more = places.length > 1 ? ` (and ${places.length - 1} more, listed in details.findings)` : '';
  throw new AppError(
    'secret_detected',
    `${what ? `${what}: ` : ''}${describePlace(places[0]!)}${more}. Credentials are never stored, since every version of a record is kept for good, so nothing was written: remove the secret and say where it is kept instead (a vault path, an environment variable's name)`,
    { findings: places },
  );
}

export function refuseSecretsInChangeset(input: ChangesetInput): void {
  refuseSecrets(secretsInChangeset(input));
}

/** For writes that are not changesets (a collection's goal, a chat log's summary before its collection exists). */
export function refuseSecretsInFields(fields: Record<string, unknown>, what: string): void {
  refuseSecrets(placed(findSecretsInFields(fields)), what);
}
