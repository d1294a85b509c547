// Typed arrays that grow in place, for the embedded index's arrays that grow with it, are written
// once and read a few elements at a time (the ids' bytes and where each slot's start,
// slot-ids.ts). An ordinary typed array grows by a copy, and until the next full GC the old one
// is garbage; its unused end is memory, since a new ArrayBuffer is zeroed. A resizable
// ArrayBuffer is reserved ahead (address space only) and committed as it fills: growing copies
// nothing, and pages committed but not yet written cost no memory. Where a reservation fails (a
// process under `ulimit -v`, or more than a resizable buffer may reserve), the array is an
// ordinary one, copied as it grows. Such buffers are not in process.memoryUsage().arrayBuffers.
// Not for arrays read in long loops: Node 20's V8 reads a typed array over a resizable buffer
// about 3 times slower (docs/eval.md, "Issue 29: the index in memory").

export type GrowableArray = Int32Array | Uint32Array | Uint16Array | Uint8Array | Float32Array;

/** ES2024's resizable ArrayBuffer, which Node 20 has (the project's TypeScript library is ES2022's). */
interface ResizableBuffer extends ArrayBuffer {
  readonly resizable?: boolean;
  readonly maxByteLength?: number;
  resize(byteLength: number): void;
}
const ResizableBuffer = ArrayBuffer as unknown as new (byteLength: number, options: { maxByteLength: number }) => ResizableBuffer;

interface Kind<T> {
  new (length: number): T;
  new (buffer: ArrayBuffer): T;
  readonly BYTES_PER_ELEMENT: number;
}

/** `length` elements of `kind`, in a buffer reserved for `reserve` elements when the process allows it. */
export function growableArray<T extends GrowableArray>(kind: Kind<T>, length: number, reserve: number): T {
  const bytes = kind.BYTES_PER_ELEMENT;
  let buffer: ArrayBuffer;
  try {
    buffer = new ResizableBuffer(length * bytes, { maxByteLength: Math.max(length, reserve) * bytes });
  } catch {
    return new kind(length);
  }
  // Length-tracking: the array's length follows the buffer's as it grows.
  return new kind(buffer);
}

/** How much an array grows at least when it must: by half its length again. */
const GROWTH = 1.5;

/**
 * `array`, or an array holding its elements, with room for at least `length`: the same array,
 * grown in place while its reservation lasts; else a new one (reserved for `reserve`) with a copy.
 * It grows by half again, not by the element asked for: the index asks for one more slot per
 * chunk, and a resize per chunk (a call into V8 that may commit pages) was ~4 µs of each of the
 * drain's three appends (docs/eval.md, "Session 26"); pages committed but not written cost no memory.
 */
export function withRoom<T extends GrowableArray>(array: T, length: number, reserve: number): T {
  if (array.length >= length) return array;
  const buffer = array.buffer as ResizableBuffer;
  const bytes = array.BYTES_PER_ELEMENT;
  const wanted = Math.max(length, Math.ceil(array.length * GROWTH));
  if (buffer.resizable && length * bytes <= buffer.maxByteLength!) {
    buffer.resize(Math.min(wanted * bytes, buffer.maxByteLength!));
    return array;
  }
  const grown = growableArray(array.constructor as Kind<T>, wanted, Math.max(reserve, wanted));
  grown.set(array);
  return grown;
}
