// The alignment report: per changed file, the ingested doc sections that expect it, best first,
// each with its reasons and a confidence. The CLI, the REST route and the GitHub push path all
// hand out this one shape.

export type Confidence = 'high' | 'medium' | 'low';

export interface Expectation {
  /** The doc section's record id. */
  id: string;
  path: string;
  heading: string;
  section_key: string;
  title: string;
  confidence: Confidence;
  /** 0–1: how sure the scan is that this section expects the change. */
  score: number;
  /** The strongest reason, e.g. "touches consensus/wal.go" or "names `TimeoutCommit` (changed)". */
  reason: string;
  reasons: string[];
}

export interface FileReport {
  path: string;
  /** The changed identifiers the scan looked for, most telling first. */
  identifiers: string[];
  expectations: Expectation[];
}

export interface AlignReport {
  base: string | null;
  head: string | null;
  files: FileReport[];
  summary: { files: number; expectations: number; high: number; medium: number; low: number };
}

/** The thresholds on the score; chosen with `npm run eval -- align` (docs/eval.md). */
export const CONFIDENCE_AT: Record<Exclude<Confidence, 'low'>, number> = { high: 0.8, medium: 0.5 };

export const confidenceOf = (score: number): Confidence =>
  score >= CONFIDENCE_AT.high ? 'high' : score >= CONFIDENCE_AT.medium ? 'medium' : 'low';

const RANK: Record<Confidence, number> = { high: 3, medium: 2, low: 1 };

/** Whether the report holds an expectation at `level` or above (the CLI's --fail-on). */
export const hasAtLeast = (report: AlignReport, level: Confidence) =>
  report.files.some((f) => f.expectations.some((e) => RANK[e.confidence] >= RANK[level]));

export function summarise(base: string | null, head: string | null, files: FileReport[]): AlignReport {
  const all = files.flatMap((f) => f.expectations);
  const count = (c: Confidence) => all.filter((e) => e.confidence === c).length;
  return {
    base,
    head,
    files,
    summary: { files: files.length, expectations: all.length, high: count('high'), medium: count('medium'), low: count('low') },
  };
}

/** The report as text: each changed file that some doc expects, then its sections, best first. */
export function renderAlignReport(report: AlignReport): string {
  const out: string[] = [];
  for (const f of report.files) {
    if (!f.expectations.length) continue;
    out.push(f.path);
    for (const e of f.expectations) {
      out.push(`  ${e.confidence.padEnd(6)} ${e.score.toFixed(2)}  ${e.section_key}  ${e.title}`);
      out.push(`      because: ${e.reasons.join('; ')}`);
    }
  }
  const s = report.summary;
  const range = report.base || report.head ? ` (${report.base ?? 'working tree'} → ${report.head ?? 'working tree'})` : '';
  out.push(
    s.expectations
      ? `${s.expectations} doc section(s) expect ${report.files.filter((f) => f.expectations.length).length} of ${s.files} changed file(s)${range}: ${s.high} high, ${s.medium} medium, ${s.low} low`
      : `no doc section expects the ${s.files} changed file(s)${range}`,
  );
  return out.join('\n');
}
