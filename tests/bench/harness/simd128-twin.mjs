// A posenc contender run again on an instance with the SIMD128 kernels (env.peSimd128, which the
// Node and browser runs create when the measured instance runs the relaxed-SIMD ones): the relaxed
// kernels' before and after, side by side in one table, on the same input and bounds.

/** The twin of `contender` (a posenc contender whose prepare uses env.pe). */
export function onSimd128(contender) {
  return {
    ...contender,
    id: `${contender.id}-simd128`,
    label: `${contender.label} [SIMD128 kernels]`,
    needs: 'peSimd128',
    prepare: (p, input, env) => contender.prepare(p, input, { ...env, pe: env.peSimd128 }),
  };
}
