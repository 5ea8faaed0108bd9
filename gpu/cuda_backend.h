// The CUDA half of gpu/ (internal). Defined in cuda_backend.cu when feedrate is built with
// CUDA, and in no_cuda.cc otherwise, where every entry point reports that CUDA is absent.
#pragma once

#include <memory>

#include "gpu/transfer.h"

namespace feedrate::gpu {

std::unique_ptr<Transfer> make_cuda_transfer(const TransferOptions& options);

}  // namespace feedrate::gpu
