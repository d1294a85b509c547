// The streaming tokeniser under the converter: the same tokens whatever the chunking (a token
// may straddle any chunk boundary), numbers parsed as Number() parses them, strings decoded as
// JSON.parse decodes them, and errors that name the byte.
import { describe, expect, it } from 'vitest';
import { JsonSyntaxError, JsonTokenizer, type TokenSink } from '../../../src/providers/glove/json-tokens.js';

function tokens(chunks: Buffer[]): unknown[] {
  const out: unknown[] = [];
  const sink: TokenSink = {
    punct: (code) => out.push(String.fromCharCode(code)),
    string: (value) => out.push({ s: value }),
    number: (value) => out.push(value),
    literal: (value) => out.push({ l: value }),
  };
  const t = new JsonTokenizer(sink);
  for (const c of chunks) t.push(c);
  t.end();
  return out;
}

const DOC =
  '{"w":["the","\\"","naïve","\\u00e9t\\u00e9","日本"],"v":{"a\\\\b":[0.1,-0.25,3.24940891,-8e-05,1E3,12345678901234567,0,-0,0.00000001]},"x":[true,false,null]} ';

describe('JsonTokenizer', () => {
  it('gives the same tokens for every chunking, down to one byte at a time', () => {
    const bytes = Buffer.from(DOC, 'utf8');
    const whole = tokens([bytes]);
    expect(whole).toContainEqual({ s: 'été' });
    expect(whole).toContainEqual({ s: 'a\\b' });
    expect(whole).toContainEqual({ s: '日本' });
    for (const size of [1, 2, 3, 7, 16]) {
      const chunks = Array.from({ length: Math.ceil(bytes.length / size) }, (_, i) => bytes.subarray(i * size, (i + 1) * size));
      expect(tokens(chunks), `chunks of ${size}`).toEqual(whole);
    }
  });

  it('parses numbers exactly as Number() does, fast path and slow path alike', () => {
    const texts = [
      '0.1',
      '-0.25',
      '3.24940891',
      '-8e-05',
      '1E3',
      '12345678901234567',
      '0',
      '-0',
      '0.00000001',
      '0.123456789012345',
      '-0.0095799',
      '341478',
    ];
    const parsed = tokens([Buffer.from(`[${texts.join(',')}]`)]).filter((t) => typeof t === 'number');
    expect(parsed).toEqual(texts.map(Number));
    expect(Object.is(parsed[7], -0)).toBe(true);
  });

  it('names the byte of a syntax error and refuses input that stops mid-token', () => {
    expect(() => tokens([Buffer.from('[1, @]')])).toThrow(new JsonSyntaxError('unexpected byte 0x40', 4));
    expect(() => tokens([Buffer.from('["unterminated')])).toThrow(/unexpected end of input at byte 1/);
    expect(() => tokens([Buffer.from('[tru')])).toThrow(/unexpected end of input/);
    expect(() => tokens([Buffer.from('[1.2.3]')])).toThrow(/bad number "1.2.3"/);
    expect(() => tokens([Buffer.from('[-]')])).toThrow(/bad number "-"/);
  });
});
