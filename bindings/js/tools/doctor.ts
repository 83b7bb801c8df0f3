// pe.doctor: the convention doctor. `identify` tells which RoPE convention (pairing, rotary width,
// base, offset, scaling) turned tensors before a rotation into tensors after it; `config` lists every
// place a model's config.json can be read more than one way and the choice the plan made.
import type { TensorInput } from '../runtime/args.js';
import type { RopeApi } from '../families/rope/rope.js';
import type { ModelConfigOptions } from '../model/hf-config.js';
import type { ModelApi } from '../model/model-api.js';
import { configFn } from './doctor-config.js';
import type { DoctorConfigReport } from './doctor-config.js';
import { identifyFn } from './doctor-identify.js';
import type { DoctorIdentification, DoctorIdentifyOptions } from './doctor-identify.js';

export type { DoctorConfigReport, DoctorFinding } from './doctor-config.js';
export type { DoctorIdentification, DoctorIdentifyOptions } from './doctor-identify.js';

/** The convention doctor: `pe.doctor`. */
export interface DoctorApi {
  /**
   * Which RoPE turned `before` into `after` (head rows, the same shape; positions as you believe
   * them): pairing, rotary width, base, scaling, attention factor and the offset of the positions,
   * with a residual and a confidence. Needs tokens at two positions at least (adjacent ones pin down
   * every frequency).
   */
  identify(before: TensorInput, after: TensorInput, options?: DoctorIdentifyOptions): DoctorIdentification;
  /** Every ambiguity of a Hugging Face config.json (object or JSON text) and the choice the plan made. */
  config(config: object | string, options?: ModelConfigOptions): DoctorConfigReport;
}

export function doctorApi(rope: RopeApi, model: ModelApi): DoctorApi {
  return { identify: identifyFn(rope), config: configFn(model) };
}
