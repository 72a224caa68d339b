// <torch/headeronly/util/Half.h> (PyTorch 2.9's header-only API): c10::Half, named in torch::headeronly too.
#include <fuselab_torch.h>
namespace torch::headeronly {
using c10::Half;
}
