// Words of an ask that say what to do rather than what it is about: no gap when nothing covers
// them (src/brief/gaps.ts), and no sign of which item answers (src/providers/local-synthesizer.ts).
import { stem } from './tokenize.js';

export const GENERIC_WORDS: ReadonlySet<string> = new Set(
  (
    'add adding added make making change changing update updating fix fixing implement implementing use using create creating ' +
    'new write writing remove removing delete need needs want support supporting allow let get set build building ' +
    'please also just some any all each every one two more most other same into onto about over under via per against ' +
    'among amongst between within across through throughout along toward towards beside besides beyond around ' +
    'out own without never rather after before become becomes give gives take takes keep still even only then than such while way ' +
    'the a an and or of to in on for with from by at as is are be it this that these those there here our my your their ' +
    // A question's frame ("how are refunds approved?", "can we refund twice?") is no topic.
    'how many much why what when where who whom whose which was were been being does did done can could should would will shall may might must ' +
    'we us you they them its his her has have had not yes happen happens happened happening ' +
    // A reflexive points back at what the ask already named ("the app disseminates them itself").
    'itself themselves himself herself myself yourself yourselves ourselves ' +
    // Connectives: they join an ask's parts and name nothing in them.
    'because instead unless whether either neither both already yet though although since until upon alone ones but nor ' +
    // How much, not of what: "matched 'too'" on an item told the agent nothing.
    'too very really quite ' +
    // Where a change lands rather than what it is about: "the billing page" is a gap in billing, not in pages.
    'page pages screen view file files component components module function method class code endpoint route button field form test tests ' +
    // What is done to the code, and how much of it: "refactor the payout batcher" asks nothing about refactoring.
    'refactor refactoring rename renaming cleanup tidy improve improving rewrite rewriting simplify simplifying tweak rework reworking ' +
    'investigate debug debugging turn small ' +
    // Which way to move a setting, and asking to be told: "lower the deletion delay" is about the
    // delay ("matched 'lower'" was read on briefs over real docs), "explain why…" about the why.
    'lower lowering raise raising increase increasing decrease decreasing reduce reducing faster slower sooner ' +
    'explain explaining understand figure ' +
    // A contraction's head, as the tokenizer leaves it ("don't" → 'don', "I'd" → 'i').
    "i don doesn didn isn aren wasn weren won wouldn shouldn couldn haven hasn let's"
  ).split(' '),
);

/**
 * Whether a word (lower case) is one of GENERIC_WORDS or another form of one: "keeps" as "keep",
 * "updates" as "update", as the because line already reads them (src/retrieval/because.ts).
 */
export const namesNothing = (word: string): boolean => GENERIC_WORDS.has(word) || GENERIC_WORDS.has(stem(word));
