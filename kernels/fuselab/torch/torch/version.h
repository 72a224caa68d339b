// <torch/version.h>: the PyTorch release whose extension API these headers give, as
// extensions test it (TORCH_VERSION_MAJOR >= 2).
#pragma once
#define TORCH_VERSION_MAJOR 2
#define TORCH_VERSION_MINOR 5
#define TORCH_VERSION_PATCH 0
#define TORCH_VERSION "2.5.0"
