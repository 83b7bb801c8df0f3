// Precision oracle binding: one upstream recipe's errors against float64, per bucket of positions.
#include "boundary.hpp"
#include "posenc/rope_precision.hpp"
#include "posenc_boundary.hpp"

namespace posenc::bindings {

Status rope_precision_binding(const RopePrecisionArgs& a) {
  PrecisionReference reference;
  reference.inv_freq = ptr<const double>(a.inv_freq);
  POSENC_RETURN_IF_ERROR(to_size("pairs", a.pairs, &reference.pairs));
  reference.attention_factor = a.attention_factor;
  PrecisionRecipe recipe;
  recipe.recipe = a.recipe;
  recipe.pipeline_freq = optional_ptr<const double>(a.pipeline_freq);
  recipe.attention = a.attention;
  recipe.theta_scale = a.theta_scale;
  recipe.freq_scale = a.freq_scale;
  recipe.ext_factor = a.ext_factor;
  recipe.corr_low = a.corr_low;
  recipe.corr_high = a.corr_high;
  std::size_t count = 0, bucket = 0;
  POSENC_RETURN_IF_ERROR(to_size("contextLength", a.count, &count));
  POSENC_RETURN_IF_ERROR(to_size("bucket", a.bucket, &bucket));
  return rope_precision(reference, recipe, a.start, count, bucket, ptr<double>(a.out));
}

}  // namespace posenc::bindings
