// The bounds every kernel is measured against, in the same run and on the same number of bytes:
//   fill  - memory.fill of the output's bytes (the cheapest way to write them from wasm),
//   copy  - memory.copy of those bytes (read them once, write them once),
//   rmw   - an in-place SIMD read-modify-write pass over them: v128.load, f32x4.mul, f32x4.add,
//           v128.store, unrolled four times (64 bytes per iteration), i.e. the fastest an in-place
//           kernel that touches each float once can be,
//   add   - the same in-place pass with a second input read alongside (x += t): the fastest an
//           add-in-place of a cached table can be, since it must read the table too.
//   rot   - (RoPE cases) an in-place SIMD rotation of head rows as the half pairing stores them,
//           (x[i], x[i + d/2]) <- (x[i] c - x[i + d/2] s, x[i] s + x[i + d/2] c), with one cos and
//           one sin held in registers: four multiplies and two adds per 8 floats where rmw has
//           two and two, and no cos/sin table read, no validation, no return to JS. The fastest a
//           RoPE kernel can be on this layout.
// The module is assembled here from bytes (no build step, nothing committed but this source) and
// checked with WebAssembly.validate. It imports posenc's own WebAssembly.Memory, and each case's
// bound buffers are posenc tensors (pe.memory.tensor) allocated beside the contenders' ones, so
// that a bound and a kernel differ only in what they compute (tests/bench/placement-probe.mjs
// compares one loop in two regions of that memory).

/** Unsigned LEB128. */
function uleb(n) {
  const out = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n !== 0) b |= 0x80;
    out.push(b);
  } while (n !== 0);
  return out;
}

const vec = (items) => [...uleb(items.length), ...items.flat()];
const section = (id, body) => [id, ...uleb(body.length), ...body];
const str = (s) => vec([...new TextEncoder().encode(s)].map((b) => [b]));

const I32 = 0x7f;
const op = {
  localGet: (i) => [0x20, ...uleb(i)],
  localSet: (i) => [0x21, ...uleb(i)],
  localTee: (i) => [0x22, ...uleb(i)],
  i32Const: (v) => [0x41, ...slebSmall(v)],
  i32Add: [0x6a],
  i32LtU: [0x49],
  block: [0x02, 0x40],
  loop: [0x03, 0x40],
  brIf: (d) => [0x0d, ...uleb(d)],
  end: [0x0b],
  memoryFill: [0xfc, ...uleb(11), 0x00],
  memoryCopy: [0xfc, ...uleb(10), 0x00, 0x00],
  v128Load: (offset) => [0xfd, ...uleb(0), 4, ...uleb(offset)], // align 2^4
  v128Store: (offset) => [0xfd, ...uleb(11), 4, ...uleb(offset)],
  v128Const: (f32s) => [0xfd, ...uleb(12), ...new Uint8Array(Float32Array.from(f32s).buffer)],
  f32x4Add: [0xfd, ...uleb(228)],
  f32x4Sub: [0xfd, ...uleb(229)],
  f32x4Mul: [0xfd, ...uleb(230)],
};

function slebSmall(v) {
  const out = [];
  for (;;) {
    const b = v & 0x7f;
    v >>= 7;
    if ((v === 0 && (b & 0x40) === 0) || (v === -1 && (b & 0x40) !== 0)) {
      out.push(b);
      return out;
    }
    out.push(b | 0x80);
  }
}

/** The module: memory (imported as bench.memory), fill(dst, n), copy(dst, src, n), rmw(ptr, n), add(dst, src, n), rot(ptr, n, half); n a multiple of 64 for rmw/add and of 2 * half for rot (half a multiple of 32). */
function moduleBytes() {
  // fill(dst, n): memory.fill(dst, 0, n)
  const fill = [...op.localGet(0), ...op.i32Const(0), ...op.localGet(1), ...op.memoryFill, ...op.end];
  // copy(dst, src, n)
  const copy = [...op.localGet(0), ...op.localGet(1), ...op.localGet(2), ...op.memoryCopy, ...op.end];
  // rmw(p, n): end = p + n; do { 4 x (v = load(p + 16j); store(p + 16j, v * -1 + 0)) ; p += 64 } while (p < end)
  const P = 0, N = 1, END = 2;
  const body = [];
  for (let j = 0; j < 4; j++) {
    body.push(...op.localGet(P), ...op.localGet(P), ...op.v128Load(16 * j), ...op.v128Const([-1, -1, -1, -1]), ...op.f32x4Mul,
      ...op.v128Const([0, 0, 0, 0]), ...op.f32x4Add, ...op.v128Store(16 * j));
  }
  const rmw = [
    ...op.localGet(P), ...op.localGet(N), ...op.i32Add, ...op.localSet(END),
    ...op.block, ...op.localGet(N), ...[0x45], ...op.brIf(0), // i32.eqz n -> done
    ...op.loop, ...body,
    ...op.localGet(P), ...op.i32Const(64), ...op.i32Add, ...op.localTee(P), ...op.localGet(END), ...op.i32LtU, ...op.brIf(0),
    ...op.end, ...op.end, ...op.end,
  ];
  // add(d, s, n): end = d + n; do { 4 x (store(d + 16j, load(d + 16j) + load(s + 16j))); d += 64; s += 64 } while (d < end)
  const D = 0, S = 1, AN = 2, AEND = 3;
  const addBody = [];
  for (let j = 0; j < 4; j++) {
    addBody.push(...op.localGet(D), ...op.localGet(D), ...op.v128Load(16 * j), ...op.localGet(S), ...op.v128Load(16 * j),
      ...op.f32x4Add, ...op.v128Store(16 * j));
  }
  const add = [
    ...op.localGet(D), ...op.localGet(AN), ...op.i32Add, ...op.localSet(AEND),
    ...op.block, ...op.localGet(AN), ...[0x45], ...op.brIf(0),
    ...op.loop, ...addBody,
    ...op.localGet(S), ...op.i32Const(64), ...op.i32Add, ...op.localSet(S),
    ...op.localGet(D), ...op.i32Const(64), ...op.i32Add, ...op.localTee(D), ...op.localGet(AEND), ...op.i32LtU, ...op.brIf(0),
    ...op.end, ...op.end, ...op.end,
  ];
  // rot(p, n, half): rows of 2 * half bytes; end = p + n; do { rowEnd = p + half;
  //   do { 2 x (a = load(p + 16j); b = load(p + half + 16j); store(p + 16j, a c - b s);
  //            store(p + half + 16j, a s + b c)); p += 32 } while (p < rowEnd); p += half } while (p < end)
  const RN = 1, HALF = 2, REND = 3, ROWEND = 4, A = 5, B = 6, HI = 7; // params p, n, half; i32 locals; v128 locals; i32 hi
  const C = [0.6, 0.6, 0.6, 0.6], SN = [0.8, 0.8, 0.8, 0.8]; // c^2 + s^2 = 1: repeated rotations stay bounded
  const rotBody = [...op.localGet(P), ...op.localGet(HALF), ...op.i32Add, ...op.localSet(HI)];
  for (let j = 0; j < 2; j++) {
    rotBody.push(
      ...op.localGet(P), ...op.v128Load(16 * j), ...op.localSet(A),
      ...op.localGet(HI), ...op.v128Load(16 * j), ...op.localSet(B),
      ...op.localGet(P), ...op.localGet(A), ...op.v128Const(C), ...op.f32x4Mul, ...op.localGet(B), ...op.v128Const(SN), ...op.f32x4Mul,
      ...op.f32x4Sub, ...op.v128Store(16 * j),
      ...op.localGet(HI), ...op.localGet(A), ...op.v128Const(SN), ...op.f32x4Mul, ...op.localGet(B), ...op.v128Const(C), ...op.f32x4Mul,
      ...op.f32x4Add, ...op.v128Store(16 * j),
    );
  }
  const rot = [
    ...op.localGet(P), ...op.localGet(RN), ...op.i32Add, ...op.localSet(REND),
    ...op.block, ...op.localGet(RN), ...[0x45], ...op.brIf(0),
    ...op.loop, // rows
    ...op.localGet(P), ...op.localGet(HALF), ...op.i32Add, ...op.localSet(ROWEND),
    ...op.loop, ...rotBody, // pairs of a row
    ...op.localGet(P), ...op.i32Const(32), ...op.i32Add, ...op.localTee(P), ...op.localGet(ROWEND), ...op.i32LtU, ...op.brIf(0),
    ...op.end,
    ...op.localGet(P), ...op.localGet(HALF), ...op.i32Add, ...op.localTee(P), ...op.localGet(REND), ...op.i32LtU, ...op.brIf(0),
    ...op.end, ...op.end, ...op.end,
  ];
  const code = (locals, instrs) => {
    const fn = [...vec(locals), ...instrs];
    return [...uleb(fn.length), ...fn];
  };
  return new Uint8Array([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, vec([[0x60, ...vec([[I32], [I32]]), 0x00], [0x60, ...vec([[I32], [I32], [I32]]), 0x00]])), // types
    ...section(2, vec([[...str('bench'), ...str('memory'), 0x02, 0x00, ...uleb(0)]])), // import a memory: min 0 pages, no max
    ...section(3, vec([[0x00], [0x01], [0x00], [0x01], [0x01]])), // fill: t0, copy: t1, rmw: t0, add: t1, rot: t1
    ...section(7, vec([
      [...str('fill'), 0x00, 0x00], [...str('copy'), 0x00, 0x01], [...str('rmw'), 0x00, 0x02],
      [...str('add'), 0x00, 0x03], [...str('rot'), 0x00, 0x04],
    ])),
    ...section(10, vec([code([], fill), code([], copy), code([[1, I32]], rmw), code([[1, I32]], add),
      code([[2, I32], [2, 0x7b], [1, I32]], rot)])),
  ]);
}

/**
 * Instantiates the bound module on posenc's memory (`memory`, from harness/posenc-instance.mjs);
 * `prepare(bytes)` returns runnable bounds over `bytes` bytes held in two tensors of `pe`.
 */
export async function createBounds(pe, memory) {
  const bytes = moduleBytes();
  if (!WebAssembly.validate(bytes)) throw new Error('bench: the bound module does not validate');
  const { instance } = await WebAssembly.instantiate(bytes, { bench: { memory } });
  const { fill, copy, rmw, add, rot } = instance.exports;
  return {
    /**
     * Bounds over `n` bytes: two 64-byte-aligned posenc tensors, the second initialised to floats
     * ~1. `rowFloats` (RoPE cases: the head dim, a multiple of 16) enables rot over rows of that
     * width. Call dispose() when the case is done.
     */
    prepare(n, rowFloats) {
      const padded = Math.ceil(n / 64) * 64;
      const ta = pe.memory.tensor([padded / 4]); // zeros
      const tb = pe.memory.tensor([padded / 4]);
      tb.view().fill(1.25);
      const a = ta.view().byteOffset; // addresses in the shared memory: they do not move when it grows
      const b = tb.view().byteOffset;
      if (a % 64 !== 0 || b % 64 !== 0) throw new Error('bench: bound buffers are not 64-byte aligned');
      return {
        fill: () => fill(a, n),
        copy: () => copy(a, b, n),
        rmw: () => rmw(b, padded),
        add: () => add(b, a, padded), // b += a, where a holds zeros (fill writes zero bytes)
        rot: rowFloats ? () => rot(b, Math.floor(padded / (rowFloats * 4)) * rowFloats * 4, rowFloats * 2) : undefined,
        dispose() {
          ta.dispose();
          tb.dispose();
        },
        /** Whether rmw, add and rot compute what they should (x -> -x; x += 0; one rotated row). */
        check() {
          const v = () => tb.view()[3];
          const before = v();
          rmw(b, padded);
          const negated = v() === -before;
          ta.view().subarray(0, 4).fill(0.5);
          add(b, a, padded);
          const added = v() === 0.5 - before;
          ta.view().fill(0);
          rmw(b, padded);
          const restored = v() === before - 0.5;
          // rot on one row of 16 floats: lo = x[0..7] = 1, hi = x[8..15] = 2 -> 1 * 0.6 - 2 * 0.8, 1 * 0.8 + 2 * 0.6 (float32)
          const x = tb.view().subarray(0, 16);
          const keep = x.slice();
          x.set([1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2]);
          rot(b, 64, 32);
          const f = Math.fround;
          const lo = f(f(1 * f(0.6)) - f(2 * f(0.8)));
          const hi = f(f(1 * f(0.8)) + f(2 * f(0.6)));
          const rotated = x.slice(0, 8).every((w) => w === lo) && x.slice(8).every((w) => w === hi);
          x.set(keep);
          return negated && added && restored && rotated;
        },
      };
    },
  };
}
