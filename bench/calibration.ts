// How fast this machine is while a benchmark runs: a fixed piece of work that calls none of
// Doco's code (so it does not change when Doco does), timed before and after every suite. On a
// shared machine the same commit's figures have differed by half between two days; two runs'
// figures compare only as far as their calibrations agree (docs/eval.md, "Session 23").

const WORDS = ['ledger', 'refund', 'mempool', 'validator', 'ingester', 'ring', 'query', 'chunk', 'token', 'budget', 'brief', 'tier'];
const RUNS = 5;

/** A brief-like mix: strings built and split, words counted in a Map, sorted, a JSON round trip. */
function work(): number {
  const texts: string[] = [];
  let seed = 7;
  for (let i = 0; i < 4000; i++) {
    let text = '';
    for (let w = 0; w < 40; w++) {
      seed = (seed * 1103515245 + 12345) >>> 0;
      text += `${WORDS[seed % WORDS.length]}${seed % 97} `;
    }
    texts.push(text);
  }
  const counts = new Map<string, number>();
  for (const text of texts) for (const word of text.split(' ')) if (word) counts.set(word, (counts.get(word) ?? 0) + 1);
  const sorted = [...counts].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  return (JSON.parse(JSON.stringify(sorted)) as unknown[]).length;
}

/** The median milliseconds of the fixed work, over RUNS runs after one to warm up. */
export function calibrationMs(): number {
  work();
  const times: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const start = performance.now();
    work();
    times.push(performance.now() - start);
  }
  return times.sort((a, b) => a - b)[RUNS >> 1]!;
}
