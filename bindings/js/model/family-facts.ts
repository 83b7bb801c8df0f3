// The shape of the facts scripts/reference generates into ./transformers/families.ts: what one
// transformers config class is, read off the class itself and a default-constructed instance.

/** A JSON value (what a config field holds). Non-finite floats are written as `{ "__float__": "inf" }`. */
export type Json = null | boolean | number | string | readonly Json[] | { readonly [key: string]: Json };

/**
 * How a family gives text tokens positions, from a scan of its modeling code
 * (rules in scripts/reference/README.md).
 */
export type FamilyPositions =
  | 'rope'
  | 'alibi'
  | 'absolute'
  | 'relative'
  | 'none'
  | 'vision-only'
  | 'audio-only'
  | 'unknown';

export interface FamilyFacts {
  /** The config class, e.g. 'LlamaConfig' (null only when a folder has no importable class). */
  readonly configClass: string | null;
  /** Its folder under src/transformers/models, e.g. 'llama'. */
  readonly folder: string;
  /** The folder's modeling file (repository path), or null when it has none. */
  readonly modelingFile: string | null;
  /** Every field the class defines or inherits from config classes it derives from, less BASE_FIELDS. */
  readonly fields: readonly string[];
  /** Structural and positional fields of the default-constructed config, after __post_init__. */
  readonly defaults: { readonly [field: string]: Json };
  /** The class's attribute_map: alias -> canonical field. */
  readonly attributeMap: { readonly [alias: string]: string };
  /** Sub-config keys and the model_type each holds by default (text_config, vision_config, ...). */
  readonly subConfigs: { readonly [key: string]: string };
  /**
   * Config attributes the family's rotary class(es) read while being constructed and called, on the
   * default config and on every published config of the family in the fixtures.
   */
  readonly ropeReads: readonly string[];
  /** The *RotaryEmbedding classes in the folder's modeling files. */
  readonly rotaryClasses: readonly string[];
  readonly positions: FamilyPositions;
  /** Anything odd: which rotary class ran, sub-config delegation, warnings, omitted defaults. */
  readonly notes: readonly string[];
  /** Why the class could not be default-constructed (absent when it could). */
  readonly error?: string;
}
