// <torch/headeronly/core/ScalarType.h>: the scalar types, named in torch::headeronly as in c10.
#ifndef FUSELAB_TORCH_HEADERONLY_SCALAR_TYPE_H
#define FUSELAB_TORCH_HEADERONLY_SCALAR_TYPE_H
#include <fuselab_torch.h>
namespace torch::headeronly {
using at::ScalarType;
using c10::BFloat16;
using c10::Half;
}  // namespace torch::headeronly
#endif
