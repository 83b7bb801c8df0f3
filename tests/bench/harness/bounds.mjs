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
// The loops are written in bounds.wat and compiled by wat2wasm (bounds-wasm.mjs, in Node; a browser
// run fetches the same compiled file). They import posenc's own WebAssembly.Memory, and each
// case's bound buffers are posenc tensors (pe.memory.tensor) allocated beside the contenders' ones,
// so that a bound and a kernel differ only in what they compute (tests/bench/placement-probe.mjs
// compares one loop in two regions of that memory).

/**
 * Instantiates the bound module (`wasm`: the bytes of bounds.wat compiled) on posenc's memory
 * (`memory`, from harness/posenc-instance.mjs); `prepare(bytes)` returns runnable bounds over
 * `bytes` bytes held in two tensors of `pe`.
 */
export async function createBounds(pe, memory, wasm) {
  const { instance } = await WebAssembly.instantiate(wasm, { bench: { memory } });
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
