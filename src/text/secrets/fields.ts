// Finds credentials in the fields of something about to be stored: each named text, and every
// string of a JSON value (keys included) under its dotted path, so a finding says where it is —
// `prose` line 3, `body.config.database_url`, `body.steps[2]`. A JSON field is also judged by its
// key: `{"password": "…"}` has no `password =` in its text, but it is the same assignment.
import { secretKindOfField } from './context-detectors.js';
import type { SecretKind } from './detector.js';
import { findSecrets, redactSecrets, type ScanOptions } from './scan.js';

export interface FieldFinding {
  /** `title`, `prose`, `body.a.b[0]`; a finding in a key ends in `(key)`, the key shown redacted. */
  field: string;
  kind: SecretKind;
  /** Where in the field's text, when the text itself gives it away. */
  line?: number;
  column?: number;
  /** On a line carrying the allow marker, when the scan honours it (scan.ts). A key or a field judged by its key never is. */
  allowed?: true;
}

/** Deep enough for any body Doco accepts (256 KiB of JSON); deeper nesting is still walked, as text. */
const MAX_DEPTH = 64;

const childPath = (parent: string, key: string) =>
  /^[A-Za-z_][A-Za-z0-9_]*$/.test(key) ? `${parent}.${key}` : `${parent}[${JSON.stringify(key)}]`;

function scanValue(field: string, value: unknown, out: FieldFinding[], depth: number, options: ScanOptions): void {
  if (typeof value === 'string') {
    for (const f of findSecrets(value, options))
      out.push({ field, kind: f.kind, line: f.line, column: f.column, ...(f.allowed ? { allowed: f.allowed } : {}) });
    return;
  }
  if (value === null || typeof value !== 'object') return;
  if (depth >= MAX_DEPTH) {
    scanValue(field, JSON.stringify(value), out, depth, options);
    return;
  }
  if (Array.isArray(value)) {
    value.forEach((item, i) => scanValue(`${field}[${i}]`, item, out, depth + 1, options));
    return;
  }
  for (const [key, item] of Object.entries(value)) {
    // A secret used as a key must not reach the finding through its path: the path names it redacted.
    const keyFindings = findSecrets(key);
    const path = childPath(field, keyFindings.length ? redactSecrets(key).text : key);
    for (const f of keyFindings) out.push({ field: `${path} (key)`, kind: f.kind });
    const before = out.length;
    scanValue(path, item, out, depth + 1, options);
    if (out.length === before && typeof item === 'string') {
      const kind = secretKindOfField(key, item);
      if (kind) out.push({ field: path, kind });
    }
  }
}

/**
 * Every finding in the named fields; fields that are undefined are skipped. The one scan every write path runs
 * before storing (the guard, connectors, the doc ingester); a short field (an id, a path) costs a length check.
 */
export function findSecretsInFields(fields: Record<string, unknown>, options: ScanOptions = {}): FieldFinding[] {
  const out: FieldFinding[] = [];
  for (const [field, value] of Object.entries(fields)) if (value !== undefined) scanValue(field, value, out, 0, options);
  return out;
}
