// The synthesis port: at most 70 words answering the ask from the brief's items, citing the
// ids it draws on.
export interface SynthesisItem {
  id: string;
  tier: string;
  title: string;
  text: string;
  /** What the item is not, when it is not in force ("ADR rejected", "ADR proposed"): never to be told as decided. */
  note?: string;
}

export interface Synthesis {
  text: string;
  cites: string[];
}

export interface Synthesizer {
  readonly name: string;
  /** `touching`: the paths the work touches, which `about` may name (an edit hook's ask does). */
  synthesize(about: string, items: SynthesisItem[], signal?: AbortSignal, touching?: readonly string[]): Promise<Synthesis>;
}
