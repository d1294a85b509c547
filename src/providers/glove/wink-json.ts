// Streams the word vectors out of a wink-embeddings package's JSON without holding it:
//   { "precision": 8, "l2NormIndex": 100, "wordIndex": 101, "size": N, "dimensions": 100,
//     "words": ["the", ",", …],                       // by corpus frequency, commonest first
//     "vectors": { "the": [v0 … v99, l2norm, rank], … },
//     "unkVector": [0 … 0, -1] }
// Only the vectors object is kept (each entry carries its word's rank in `words`); the
// scalars are returned as the header so the converter can check the entries against them.
import { createReadStream } from 'node:fs';
import { JsonSyntaxError, JsonTokenizer, type TokenSink } from './json-tokens.js';

export interface WinkHeader {
  dimensions: number;
  size: number;
  l2NormIndex: number;
  wordIndex: number;
}

/** Called once per `vectors` entry; `values` is reused between calls (copy what you keep). */
export type OnWordVector = (word: string, values: Float64Array, length: number) => void;

const [OPEN_OBJECT, CLOSE_OBJECT, OPEN_ARRAY, CLOSE_ARRAY, COLON, COMMA] = [0x7b, 0x7d, 0x5b, 0x5d, 0x3a, 0x2c];
const MAX_ENTRY = 4096; // numbers in one vectors entry: far above any real embedding

/** Follows the document's nesting: which top-level key it is under, and the current word. */
class WinkSink implements TokenSink {
  readonly scalars = new Map<string, number>();
  private readonly frames: { object: boolean; expectKey: boolean }[] = [];
  private topKey = '';
  private word = '';
  private readonly values = new Float64Array(MAX_ENTRY);
  private length = 0;
  private finished = false;

  constructor(
    private readonly onVector: OnWordVector,
    private readonly where: () => number,
  ) {}

  private fail(message: string): never {
    throw new JsonSyntaxError(message, this.where());
  }

  private inVectorEntry(): boolean {
    return this.frames.length === 3 && this.topKey === 'vectors';
  }

  punct(code: number): void {
    const top = this.frames[this.frames.length - 1];
    if (this.finished) this.fail('content after the end of the document');
    if (code === OPEN_OBJECT || code === OPEN_ARRAY) {
      if (top?.object && top.expectKey) this.fail('a value where a key was expected');
      this.frames.push({ object: code === OPEN_OBJECT, expectKey: code === OPEN_OBJECT });
      if (this.inVectorEntry()) this.length = 0;
    } else if (code === CLOSE_OBJECT || code === CLOSE_ARRAY) {
      if (!top || top.object !== (code === CLOSE_OBJECT)) this.fail('mismatched bracket');
      if (code === CLOSE_ARRAY && this.inVectorEntry()) this.onVector(this.word, this.values, this.length);
      this.frames.pop();
      if (this.frames.length === 0) this.finished = true;
    } else if (code === COLON) {
      if (!top?.object || !top.expectKey) this.fail('unexpected ":"');
      top.expectKey = false;
    } else if (code === COMMA) {
      if (!top) this.fail('unexpected ","');
      if (top.object) top.expectKey = true;
    }
  }

  string(value: string): void {
    const top = this.frames[this.frames.length - 1];
    if (!top) this.fail('the document must be an object');
    if (!top.object || !top.expectKey) return; // a value: only `words` has strings, and it is not needed
    if (this.frames.length === 1) this.topKey = value;
    else if (this.frames.length === 2 && this.topKey === 'vectors') this.word = value;
  }

  number(value: number): void {
    if (this.frames.length === 1) this.scalars.set(this.topKey, value);
    else if (this.inVectorEntry()) {
      if (this.length >= MAX_ENTRY) this.fail(`vector of "${this.word}" is longer than ${MAX_ENTRY}`);
      this.values[this.length++] = value;
    }
  }

  literal(): void {}

  header(): WinkHeader {
    if (!this.finished) this.fail('the document ends before its closing brace');
    const get = (key: keyof WinkHeader) => {
      const value = this.scalars.get(key);
      if (value === undefined || !Number.isInteger(value) || value < 0) this.fail(`missing or bad "${key}"`);
      return value;
    };
    return { dimensions: get('dimensions'), size: get('size'), l2NormIndex: get('l2NormIndex'), wordIndex: get('wordIndex') };
  }
}

/** Reads `file` in 4 MB chunks, calling `onVector` per entry; resolves to the header. */
export async function readWinkJson(file: string, onVector: OnWordVector): Promise<WinkHeader> {
  let tokenizer: JsonTokenizer | undefined;
  const sink = new WinkSink(onVector, () => tokenizer?.offset ?? 0);
  tokenizer = new JsonTokenizer(sink);
  for await (const chunk of createReadStream(file, { highWaterMark: 4 << 20 })) tokenizer.push(chunk as Buffer);
  tokenizer.end();
  return sink.header();
}
