// The relaxed-SIMD kernel module as the build embedded it (dist/relaxed-base64.js), for the suites
// that check it shipped, load it, or predict what createPosEnc's 'auto' picks.
import { existsSync } from 'node:fs';

/** Its bytes, or undefined when the build had no clang-19 (an empty string) or dist/ is not built. */
export async function embeddedRelaxedModule() {
  const url = new URL('../../dist/relaxed-base64.js', import.meta.url);
  if (!existsSync(url)) return undefined;
  const { default: base64 } = await import(url.href);
  return base64 === '' ? undefined : Buffer.from(base64, 'base64');
}
