// Finds credentials in a text: every detector, most specific first, each behind a keyword gate so
// a text with no candidate costs one lowercase copy and a few substring searches. A finding
// names the kind and where it is (line, column), never the value.
import { contextDetectors } from './context-detectors.js';
import type { Detector, SecretKind } from './detector.js';
import { structuredDetectors } from './structured-detectors.js';
import { tokenDetectors } from './token-detectors.js';

/** In priority order: where two detectors claim overlapping text, the earlier one names it. */
export const DETECTORS: readonly Detector[] = [...structuredDetectors, ...tokenDetectors, ...contextDetectors];

/** Where a secret sits in a text, as offsets; kept inside this module and redaction. */
export interface SecretSpan {
  kind: SecretKind;
  start: number;
  end: number;
}

/** What callers see: the kind and the 1-based line and column of the secret's first character. */
export interface SecretFinding {
  kind: SecretKind;
  line: number;
  column: number;
  /** Set only when the scan honours the allow marker and the secret's line carries it. */
  allowed?: true;
}

/**
 * The marker an author writes on a line of documentation to let an example credential through
 * (`"password": "…"  // doco:allow-secret`). Only the doc ingester honours it (docs/ingest.md);
 * every other write refuses a credential whatever the line says.
 */
export const ALLOW_SECRET_MARKER = 'doco:allow-secret';

export interface ScanOptions {
  /** Mark findings whose line carries ALLOW_SECRET_MARKER as allowed (the doc ingester only). */
  honourAllowMarker?: boolean;
}

/** No text shorter than this holds a credential we detect (`pwd=` and eight characters is 12). */
const MIN_SECRET_CHARS = 12;

function secretGroup(d: Detector, m: RegExpExecArray): number {
  if (d.group === undefined) return 0;
  if (typeof d.group === 'number') return d.group;
  return d.group.find((g) => m[g] !== undefined) ?? 0;
}

export function findSecretSpans(text: string): SecretSpan[] {
  if (text.length < MIN_SECRET_CHARS) return [];
  const lower = text.toLowerCase();
  // Detectors share keywords (`key`, `token`, `pass`): each is looked for once.
  const found = new Map<string, boolean>();
  const holds = (k: string) => found.get(k) ?? found.set(k, lower.includes(k)).get(k)!;
  const spans: SecretSpan[] = [];
  for (const d of DETECTORS) {
    if (!d.keywords.some(holds)) continue;
    d.pattern.lastIndex = 0;
    for (let m = d.pattern.exec(text); m; m = d.pattern.exec(text)) {
      const g = secretGroup(d, m);
      const verdict = d.accept ? d.accept(m[g]!, m, text) : true;
      if (!verdict) continue;
      const [start, end] = m.indices![g]!;
      const span: SecretSpan =
        typeof verdict === 'object' ? { kind: d.kind, start: verdict.start ?? start, end: verdict.end } : { kind: d.kind, start, end };
      if (!spans.some((s) => s.start < span.end && span.start < s.end)) spans.push(span);
    }
  }
  return spans.sort((a, b) => a.start - b.start);
}

function lineAndColumn(text: string, offset: number): { line: number; column: number; lineStart: number } {
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf('\n'); i !== -1 && i < offset; i = text.indexOf('\n', i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { line, column: offset - lineStart + 1, lineStart };
}

/** Whether the line the secret starts on carries the allow marker, anywhere on it. */
function lineCarriesMarker(text: string, lineStart: number): boolean {
  const end = text.indexOf('\n', lineStart);
  return text.slice(lineStart, end === -1 ? text.length : end).includes(ALLOW_SECRET_MARKER);
}

export function findSecrets(text: string, options: ScanOptions = {}): SecretFinding[] {
  return findSecretSpans(text).map((s) => {
    const { line, column, lineStart } = lineAndColumn(text, s.start);
    const allowed = options.honourAllowMarker && lineCarriesMarker(text, lineStart);
    return { kind: s.kind, line, column, ...(allowed ? { allowed: true as const } : {}) };
  });
}

/** The text with each secret replaced by `[redacted <kind>]`, and what was replaced. */
export function redactSecrets(text: string): { text: string; kinds: SecretKind[] } {
  const spans = findSecretSpans(text);
  if (!spans.length) return { text, kinds: [] };
  let out = '';
  let at = 0;
  for (const s of spans) {
    out += `${text.slice(at, s.start)}[redacted ${s.kind}]`;
    at = s.end;
  }
  return { text: out + text.slice(at), kinds: spans.map((s) => s.kind) };
}
