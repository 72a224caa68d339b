// <torch/headeronly/util/BFloat16.h> (PyTorch 2.9's header-only API): c10::BFloat16, named in torch::headeronly too.
#include <fuselab_torch.h>
namespace torch::headeronly {
using c10::BFloat16;
}
