// The sketch scan's inner loop in WebAssembly SIMD, assembled here byte by byte: one function of
// a few dozen instructions does not warrant a toolchain, and bytes built in TypeScript need no
// build step, so the same module serves vitest (TypeScript source) and dist/ (JavaScript).
//
// The function, over the index's shared memory (laid out as sketch-layout.ts says):
//
//   scan(qAt, rowsAt, from, to, floor: f32, qScale: f32, outAt) -> count
//
// scores rows [from, to): score = f32(Σ q[i]·row[i]) · rowScale · qScale, where q is the query's
// sketch as 128 int16 at qAt and a row is 128 int8 then its f32 scale, ROW_BYTES apart from
// rowsAt. Each row scoring above `floor` is written to outAt as (i32 slot, f32 score), in slot
// order; the count is returned. The integer dot product is exact, and the two multiplications
// round once each, so the JavaScript kernel (sketch-scan.ts) gives the very same scores.
import { ROW_BYTES, SKETCH_BYTES } from './sketch-layout.js';

/** Unsigned LEB128, the format's integer encoding (indices, sizes, SIMD opcodes). */
function uleb(n: number): number[] {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n) b |= 0x80;
    out.push(b);
  } while (n);
  return out;
}

/** Signed LEB128 (i32.const). */
function sleb(n: number): number[] {
  const out: number[] = [];
  for (;;) {
    const b = n & 0x7f;
    n >>= 7;
    if ((n === 0 && !(b & 0x40)) || (n === -1 && b & 0x40)) return [...out, b];
    out.push(b | 0x80);
  }
}

const name = (s: string) => [...uleb(s.length), ...Buffer.from(s, 'utf8')];
const section = (id: number, body: number[]) => [id, ...uleb(body.length), ...body];
const vec = (items: number[][]) => [...uleb(items.length), ...items.flat()];

const I32 = 0x7f;
const F32 = 0x7d;
const V128 = 0x7b;

// Plain opcodes.
const get = (l: number) => [0x20, ...uleb(l)];
const set = (l: number) => [0x21, ...uleb(l)];
const tee = (l: number) => [0x22, ...uleb(l)];
const i32 = (n: number) => [0x41, ...sleb(n)];
/** A load or store's alignment (log2) and constant offset. */
const mem = (op: number, align: number, offset: number) => [op, ...uleb(align), ...uleb(offset)];
const BLOCK = [0x02, 0x40];
const LOOP = [0x03, 0x40];
const IF = [0x04, 0x40];
const END = 0x0b;
const BR_IF = 0x0d;
const I32_ADD = 0x6a;
const I32_SUB = 0x6b;
const I32_MUL = 0x6c;
const I32_SHR_U = 0x76;
const I32_LT_U = 0x49;
const I32_GE_U = 0x4f;
const F32_GT = 0x5e;
const F32_MUL = 0x94;
const F32_CONVERT_I32_S = 0xb2;
const F32_LOAD = 0x2a;
const I32_STORE = 0x36;
const F32_STORE = 0x38;

// SIMD opcodes: the 0xfd prefix, then the opcode as LEB128.
const simd = (op: number, ...imm: number[]) => [0xfd, ...uleb(op), ...imm];
const V128_LOAD = 0x00;
/** Loads 8 bytes and sign-extends each to 16 bits: an int8 row part ready for the int16 dot. */
const V128_LOAD8X8_S = 0x01;
const I32X4_EXTRACT_LANE = 0x1b;
const I32X4_ADD = 0xae;
/** Multiplies eight int16 pairs and adds adjacent products: four int32 sums. */
const I32X4_DOT_I16X8_S = 0xba;

// Parameters, then locals: q0…q15 hold the query's 16 vectors of eight int16.
const [Q_AT, ROWS_AT, FROM, TO, FLOOR, Q_SCALE, OUT_AT] = [0, 1, 2, 3, 4, 5, 6];
const Q0 = 7;
const QUERY_VECTORS = SKETCH_BYTES / 8;
const [ROW, P, OUT, ACC, SCORE] = [
  Q0 + QUERY_VECTORS,
  Q0 + QUERY_VECTORS + 1,
  Q0 + QUERY_VECTORS + 2,
  Q0 + QUERY_VECTORS + 3,
  Q0 + QUERY_VECTORS + 4,
];

function scanBody(): number[] {
  const code: number[] = [];
  for (let j = 0; j < QUERY_VECTORS; j++) code.push(...get(Q_AT), ...simd(V128_LOAD, ...uleb(1), ...uleb(16 * j)), ...set(Q0 + j));
  // p = rowsAt + from × ROW_BYTES: the current row's address; out: where the next candidate goes.
  code.push(...get(ROWS_AT), ...get(FROM), ...i32(ROW_BYTES), I32_MUL, I32_ADD, ...set(P));
  code.push(...get(OUT_AT), ...set(OUT), ...get(FROM), ...set(ROW));
  code.push(...BLOCK, ...get(ROW), ...get(TO), I32_GE_U, BR_IF, 0, ...LOOP);
  // The 16 partial dot products summed as a tree: a chain of 4 dependent additions, not 15.
  const dots = (lo: number, hi: number): void => {
    if (hi - lo === 1) {
      code.push(...get(P), ...simd(V128_LOAD8X8_S, ...uleb(0), ...uleb(8 * lo)), ...get(Q0 + lo), ...simd(I32X4_DOT_I16X8_S));
      return;
    }
    dots(lo, (lo + hi) >> 1);
    dots((lo + hi) >> 1, hi);
    code.push(...simd(I32X4_ADD));
  };
  dots(0, QUERY_VECTORS);
  code.push(...tee(ACC), ...simd(I32X4_EXTRACT_LANE, 0));
  for (let lane = 1; lane < 4; lane++) code.push(...get(ACC), ...simd(I32X4_EXTRACT_LANE, lane), I32_ADD);
  code.push(F32_CONVERT_I32_S, ...get(P), ...mem(F32_LOAD, 0, SKETCH_BYTES), F32_MUL, ...get(Q_SCALE), F32_MUL, ...tee(SCORE));
  code.push(...get(FLOOR), F32_GT, ...IF);
  code.push(...get(OUT), ...get(ROW), ...mem(I32_STORE, 2, 0), ...get(OUT), ...get(SCORE), ...mem(F32_STORE, 2, 4));
  code.push(...get(OUT), ...i32(8), I32_ADD, ...set(OUT), END);
  code.push(...get(P), ...i32(ROW_BYTES), I32_ADD, ...set(P));
  code.push(...get(ROW), ...i32(1), I32_ADD, ...tee(ROW), ...get(TO), I32_LT_U, BR_IF, 0, END, END);
  code.push(...get(OUT), ...get(OUT_AT), I32_SUB, ...i32(3), I32_SHR_U, END);
  return code;
}

/** The module's bytes: imports env.memory (shared, up to 4 GiB), exports `scan`. */
export function sketchKernelBytes(): Uint8Array<ArrayBuffer> {
  const type = [0x60, ...vec([[I32], [I32], [I32], [I32], [F32], [F32], [I32]]), ...vec([[I32]])];
  // Shared memory: limits flag 3 (a maximum, shared), 1 page at least, 65536 (4 GiB) at most.
  const memoryImport = [...name('env'), ...name('memory'), 0x02, 0x03, ...uleb(1), ...uleb(65536)];
  const locals = vec([
    [...uleb(QUERY_VECTORS), V128],
    [...uleb(3), I32],
    [1, V128],
    [1, F32],
  ]);
  const body = [...locals, ...scanBody()];
  return new Uint8Array([
    0x00,
    0x61,
    0x73,
    0x6d,
    0x01,
    0x00,
    0x00,
    0x00, // "\0asm", version 1
    ...section(1, vec([type])),
    ...section(2, vec([memoryImport])),
    ...section(3, vec([[0]])),
    ...section(7, vec([[...name('scan'), 0x00, 0]])),
    ...section(10, vec([[...uleb(body.length), ...body]])),
  ]);
}

/** Compiled once per process: the module's bytes are constant, and every index instantiates it over its own memory. */
let compiled: WebAssembly.Module | null | undefined;

/** The compiled kernel, or undefined where WebAssembly, SIMD or shared memory is unavailable (the scan then runs in JavaScript). */
export function sketchKernelModule(): WebAssembly.Module | undefined {
  if (compiled === undefined) {
    try {
      compiled = new WebAssembly.Module(sketchKernelBytes());
    } catch {
      compiled = null;
    }
  }
  return compiled ?? undefined;
}
