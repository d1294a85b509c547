// The policy judge port: reads a record against a probabilistic policy's text. Without
// ANTHROPIC_API_KEY nothing is judged (`not_judged`, noJudge); with it, Claude Haiku 4.5 judges
// (anthropic-judge.ts).

export interface JudgeRequest {
  policy: string;
  collection: string;
  record: { node_type: string; title: string; prose: string; body: Record<string, unknown> };
}

export interface JudgeAnswer {
  violates: boolean;
  reason: string;
}

export interface PolicyJudge {
  readonly name: string;
  /** The judge's answer, or undefined when this judge does not judge at all. Throws on failure. */
  judge(req: JudgeRequest): Promise<JudgeAnswer | undefined>;
}

export const noJudge: PolicyJudge = {
  name: 'none',
  async judge() {
    return undefined;
  },
};
