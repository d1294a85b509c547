// The synthesis port: at most 70 words answering the ask from the brief's items, citing the
// ids it draws on.
export interface SynthesisItem {
  id: string;
  tier: string;
  title: string;
  text: string;
}

export interface Synthesis {
  text: string;
  cites: string[];
}

export interface Synthesizer {
  readonly name: string;
  synthesize(about: string, items: SynthesisItem[], signal?: AbortSignal): Promise<Synthesis>;
}
