// Whether an ADR's recorded status says it is in force, and the note an item of one that is not
// carries in its because (src/text/adr-status.ts).
import { describe, expect, it } from 'vitest';
import { notInForceNote, statusNotInForce, withStatusNote } from '../../src/text/adr-status.js';

const body = (adr_status?: unknown) => ({ shape: 'architecturePrinciple', ...(adr_status === undefined ? {} : { adr_status }) });

describe("an ADR's status", () => {
  it('is not in force when turned down, replaced, withdrawn or not yet agreed', () => {
    for (const s of [
      'Rejected',
      'Declined',
      'Superseded by ADR 12',
      'Deprecated',
      'Proposed.',
      'Draft',
      'In Review',
      'under review',
      'WIP',
    ])
      expect(statusNotInForce(body(s)), s).toBe(s);
    for (const s of ['Accepted', 'Implemented (moved to cosmos-sdk)', 'Approved.', 'Partially Accepted', 'Reproposed'])
      expect(statusNotInForce(body(s)), s).toBeUndefined();
    expect(statusNotInForce(body())).toBeUndefined();
    expect(statusNotInForce(body(42))).toBeUndefined();
    // Only an architecture section's: on any other record it is a field its writer chose.
    expect(statusNotInForce({ adr_status: 'Rejected' })).toBeUndefined();
    expect(statusNotInForce({ shape: 'docSection', adr_status: 'Rejected' })).toBeUndefined();
  });

  it("notes the status's first clause, its links as their words, in lower case but for names", () => {
    expect(notInForceNote(body('Rejected'))).toBe('ADR rejected');
    expect(notInForceNote(body('Proposed.'))).toBe('ADR proposed');
    expect(notInForceNote(body('In Review.'))).toBe('ADR in review');
    expect(notInForceNote(body('Superseded by [ADR-0005](0005-example.md)'))).toBe('ADR superseded by ADR-0005');
    expect(notInForceNote(body('Deprecated (see ADR 20), and replaced since'))).toBe('ADR deprecated');
    expect(notInForceNote(body(`Superseded by ${'a very long explanation '.repeat(4)}`))!.length).toBeLessThanOrEqual(44);
    expect(notInForceNote(body('Accepted'))).toBeUndefined();
    expect(withStatusNote("matched 'payout'", body('Rejected'))).toBe("matched 'payout'; ADR rejected");
    expect(withStatusNote("matched 'payout'", body('Accepted'))).toBe("matched 'payout'");
  });
});
