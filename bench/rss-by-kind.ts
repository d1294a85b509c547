// Resident memory by kind of mapping, for the load benchmark's memory points (load-probe.ts). No
// side effects: the probe itself is preloaded into the server, this is only its arithmetic.
/**
 * Resident bytes by kind of mapping, from /proc/self/smaps. V8 takes its heap's regular pages
 * from the system one anonymous 256 KiB mapping at a time (every isolate's: the main thread's and
 * workers'), so those are V8's; `[heap]` is malloc's main arena; the rest of the anonymous
 * memory is malloc's large blocks and other arenas, thread stacks and V8's large objects (and V8
 * pages the kernel merged with a neighbour into one mapping: so V8's figure is a lower bound).
 */
export interface RssByKind {
  v8Pages: number;
  mallocHeap: number;
  otherAnonymous: number;
  files: number;
}

const V8_PAGE_BYTES = 256 * 1024;
const MAPPING = /^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ \S+\s*(.*)$/;

export function rssByKind(smaps: string): RssByKind {
  const out: RssByKind = { v8Pages: 0, mallocHeap: 0, otherAnonymous: 0, files: 0 };
  let kind: keyof RssByKind = 'otherAnonymous';
  for (const line of smaps.split('\n')) {
    const m = MAPPING.exec(line);
    if (m) {
      const [, from, to, name] = m;
      const bytes = parseInt(to!, 16) - parseInt(from!, 16);
      kind =
        name === '[heap]'
          ? 'mallocHeap'
          : name!.startsWith('/')
            ? 'files'
            : !name && bytes === V8_PAGE_BYTES
              ? 'v8Pages'
              : 'otherAnonymous';
    } else if (line.startsWith('Rss:')) out[kind] += Number(line.split(/\s+/)[1]) * 1024;
  }
  return out;
}
