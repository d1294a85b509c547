// The synthesis port: at most 70 words answering the ask from the brief's items, citing the
// ids it draws on.
export interface SynthesisItem {
  id: string;
  tier: string;
  title: string;
  text: string;
  /** What the item is not, when it is not in force ("ADR rejected", "ADR proposed"): never to be told as decided. */
  note?: string;
  /** The identifier of the code being written that the item names, when that is why it is there (an edit's code terms). */
  names?: string;
}

export interface Synthesis {
  text: string;
  cites: string[];
}

export interface Synthesizer {
  readonly name: string;
  /**
   * Synthesizes from the items the brief sends, after the budget, rather than from the best
   * candidates beside the reranker: so it never names an item the brief then holds back. For a
   * synthesizer that costs too little to be worth running beside the reranker (the local one);
   * a model's runs beside it, to keep its latency off the brief's.
   */
  readonly fromSentItems?: boolean;
  /** `touching`: the paths the work touches, which `about` may name (an edit hook's ask does). */
  synthesize(about: string, items: SynthesisItem[], signal?: AbortSignal, touching?: readonly string[]): Promise<Synthesis>;
}
