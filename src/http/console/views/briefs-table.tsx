// Stored briefs as a table: what was asked (and touched), the receipt, who asked and when. The
// overview shows the latest few, /briefs the latest fifty.
import type { BriefSummary } from '../data/overview.js';
import { clip, EmojiFree, Empty, Time } from './ui.js';

export function BriefsTable({ briefs, compact }: { briefs: BriefSummary[]; compact?: boolean }) {
  if (!briefs.length) return <Empty>No briefs yet.</Empty>;
  return (
    <table>
      {compact ? null : (
        <thead>
          <tr>
            <th scope="col">about</th>
            <th scope="col">asked by</th>
            <th scope="col">when</th>
          </tr>
        </thead>
      )}
      <tbody>
        {briefs.map((b) => (
          <tr>
            <td>
              <a href={`/briefs/${b.id}`}>{clip(b.about, compact ? 90 : 100)}</a>
              {!compact && b.touching.length ? <div class="small muted">touching {clip(b.touching.join(', '), 120)}</div> : null}
              <div class="small faint">{b.receipt ? <EmojiFree text={b.receipt} /> : null}</div>
            </td>
            <td class="small">{b.principal ?? 'unknown'}</td>
            <td class="small nowrap">
              <Time d={b.created_at} />
            </td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}
