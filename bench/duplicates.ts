// How well each signal tells a near-duplicate from a related record: word-shingle Jaccard
// (k = 1, 2, 3) against the local embedder's cosine, on the synthetic corpus. Positives are
// records edited the way people re-capture (case and punctuation, a word or three changed, a
// sentence dropped, added or moved, a new title); negatives are, for each record, the most
// similar other record of its collection and type by that same signal (the hardest case: the
// synthetic records of one service share their vocabulary and sentence frames). No database.
import { localEmbedder } from '../src/providers/local-embedder.js';
import { jaccard, recordText, shingles } from '../src/text/near-duplicate.js';
import { generateCorpus, rng, type SyntheticRecord } from './synthetic.js';
import { round } from './stats.js';

const ORIGINALS = 300;
type Edit = (r: ReturnType<typeof rng>, rec: SyntheticRecord) => { title: string; prose: string };

const sentencesOf = (prose: string) => prose.split(/(?<=\.)\s+/);
const EDITS: Record<string, Edit> = {
  case_and_punctuation: (_r, rec) => ({ title: rec.title.toUpperCase(), prose: rec.prose.replace(/[,.]/g, ' ;').toLowerCase() }),
  one_word: (r, rec) => ({ title: rec.title, prose: replaceWords(r, rec.prose, 1) }),
  three_words: (r, rec) => ({ title: rec.title, prose: replaceWords(r, rec.prose, 3) }),
  drop_sentence: (r, rec) => {
    const s = sentencesOf(rec.prose);
    if (s.length > 2) s.splice(r.int(0, s.length - 1), 1);
    return { title: rec.title, prose: s.join(' ') };
  },
  add_sentence: (_r, rec) => ({ title: rec.title, prose: `${rec.prose} We agreed on this in the weekly review.` }),
  swap_sentences: (_r, rec) => {
    const s = sentencesOf(rec.prose);
    if (s.length > 1) [s[0], s[1]] = [s[1]!, s[0]!];
    return { title: rec.title, prose: s.join(' ') };
  },
  new_title: (_r, rec) => ({ title: `About ${rec.title.split(':')[0]}`, prose: rec.prose }),
};

function replaceWords(r: ReturnType<typeof rng>, prose: string, n: number): string {
  const words = prose.split(' ');
  for (let i = 0; i < n; i++) words[r.int(0, words.length - 1)] = ['foo', 'thing', 'system', 'value'][r.int(0, 3)]!;
  return words.join(' ');
}

interface Signal {
  name: string;
  score(a: { title: string; prose: string }, b: { title: string; prose: string }): Promise<number>;
}

function shingleSignal(k: number): Signal {
  return { name: `jaccard_k${k}`, score: async (a, b) => jaccard(shingles(recordText(a), k), shingles(recordText(b), k)) };
}

function cosineSignal(): Signal {
  const embedder = localEmbedder();
  const cache = new Map<string, Float32Array>();
  const vec = async (t: string) => {
    let v = cache.get(t);
    if (!v) cache.set(t, (v = (await embedder.embed([t], 'document'))[0]!));
    return v;
  };
  return {
    name: 'cosine_local',
    async score(a, b) {
      const [x, y] = [await vec(recordText(a)), await vec(recordText(b))];
      let dot = 0;
      for (let i = 0; i < x.length; i++) dot += x[i]! * y[i]!;
      return dot;
    },
  };
}

/** The threshold with the best F1, and precision and recall there. */
function bestThreshold(pos: number[], neg: number[]) {
  let best = { threshold: 0, f1: 0, precision: 0, recall: 0 };
  for (const t of [...new Set([...pos, ...neg])].sort((a, b) => a - b)) {
    const tp = pos.filter((s) => s >= t).length;
    const fp = neg.filter((s) => s >= t).length;
    const precision = tp / Math.max(1, tp + fp);
    const recall = tp / pos.length;
    const f1 = (2 * precision * recall) / Math.max(1e-9, precision + recall);
    if (f1 > best.f1) best = { threshold: t, f1, precision, recall };
  }
  return best;
}

const at = (pos: number[], neg: number[], t: number) => ({
  precision: pos.filter((s) => s >= t).length / Math.max(1, pos.filter((s) => s >= t).length + neg.filter((s) => s >= t).length),
  recall: pos.filter((s) => s >= t).length / pos.length,
});

export async function duplicatesSuite(log: (line: string) => void): Promise<Record<string, number>> {
  const corpus = generateCorpus(3000, 11).records.filter((rec) => rec.node_type !== 'reference');
  const byCollection = new Map<string, SyntheticRecord[]>();
  for (const rec of corpus)
    byCollection.set(`${rec.collection}/${rec.node_type}`, [...(byCollection.get(`${rec.collection}/${rec.node_type}`) ?? []), rec]);
  const originals = corpus.filter((rec) => (byCollection.get(`${rec.collection}/${rec.node_type}`)?.length ?? 0) > 1).slice(0, ORIGINALS);
  const r = rng(5);
  const editNames = Object.keys(EDITS);
  const pairs = originals.map((rec, i) => ({
    rec,
    edited: EDITS[editNames[i % editNames.length]!]!(r, rec),
    edit: editNames[i % editNames.length]!,
  }));
  const figures: Record<string, number> = { originals: originals.length };
  for (const signal of [shingleSignal(1), shingleSignal(2), shingleSignal(3), cosineSignal()]) {
    const pos: number[] = [];
    const neg: number[] = [];
    for (const { rec, edited } of pairs) {
      pos.push(await signal.score(edited, rec));
      let hardest = 0;
      for (const other of byCollection.get(`${rec.collection}/${rec.node_type}`)!)
        if (other.id !== rec.id) hardest = Math.max(hardest, await signal.score(rec, other));
      neg.push(hardest);
    }
    const best = bestThreshold(pos, neg);
    log(
      `${signal.name}: best F1 ${best.f1.toFixed(3)} at ${best.threshold.toFixed(3)} (precision ${best.precision.toFixed(3)}, recall ${best.recall.toFixed(3)}); hardest negative ${Math.max(...neg).toFixed(3)}, weakest positive ${Math.min(...pos).toFixed(3)}`,
    );
    figures[`${signal.name}_best_f1`] = round(best.f1, 3);
    figures[`${signal.name}_best_threshold`] = round(best.threshold, 3);
    figures[`${signal.name}_max_negative`] = round(Math.max(...neg), 3);
    if (signal.name === 'jaccard_k2') {
      const chosen = at(pos, neg, 0.6);
      figures.jaccard_k2_at_0_6_precision = round(chosen.precision, 3);
      figures.jaccard_k2_at_0_6_recall = round(chosen.recall, 3);
      for (const name of editNames) {
        const idx = pairs.map((p, i) => (p.edit === name ? i : -1)).filter((i) => i >= 0);
        log(
          `  ${name}: min ${Math.min(...idx.map((i) => pos[i]!)).toFixed(3)} mean ${(idx.reduce((s, i) => s + pos[i]!, 0) / idx.length).toFixed(3)}`,
        );
      }
    }
  }
  return figures;
}
