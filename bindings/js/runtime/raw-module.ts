// The shape of the Embind module as the JS layer sees it, generated with the C++ side from one
// description (bindings/boundary/): see bindings/js/generated/boundary.ts. Internal.
export type { Ptr, RawModule } from '../generated/boundary.js';
export { BoundCalls } from '../generated/boundary.js';
