#include "bench/micro/nvjpeg_probe/nvjpeg_library.h"

#include <dlfcn.h>

namespace feedrate::probe {
namespace {

template <typename F>
bool resolve(void* library, const char* name, F& slot, std::string& error) {
  slot = reinterpret_cast<F>(::dlsym(library, name));
  if (slot == nullptr) error = std::string("libnvjpeg has no ") + name;
  return slot != nullptr;
}

}  // namespace

bool load(NvJpeg& api, std::string& error) {
  void* library = nullptr;
  for (const char* name : {"libnvjpeg.so.13", "libnvjpeg.so"}) {
    library = ::dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (library != nullptr) {
      api.path = name;
      break;
    }
    error = ::dlerror();
  }
  if (library == nullptr) return false;
  return resolve(library, "nvjpegGetProperty", api.GetProperty, error) &&
         resolve(library, "nvjpegCreateEx", api.CreateEx, error) &&
         resolve(library, "nvjpegDestroy", api.Destroy, error) &&
         resolve(library, "nvjpegGetHardwareDecoderInfo", api.GetHardwareDecoderInfo, error) &&
         resolve(library, "nvjpegJpegStateCreate", api.JpegStateCreate, error) &&
         resolve(library, "nvjpegJpegStateDestroy", api.JpegStateDestroy, error) &&
         resolve(library, "nvjpegGetImageInfo", api.GetImageInfo, error) &&
         resolve(library, "nvjpegDecode", api.Decode, error) &&
         resolve(library, "nvjpegDecodeBatchedInitialize", api.DecodeBatchedInitialize, error) &&
         resolve(library, "nvjpegDecodeBatched", api.DecodeBatched, error) &&
         resolve(library, "nvjpegJpegStreamCreate", api.JpegStreamCreate, error) &&
         resolve(library, "nvjpegJpegStreamDestroy", api.JpegStreamDestroy, error) &&
         resolve(library, "nvjpegJpegStreamParse", api.JpegStreamParse, error) &&
         resolve(library, "nvjpegDecodeBatchedSupported", api.DecodeBatchedSupported, error);
}

const char* status_name(nvjpegStatus_t status) {
  switch (status) {
    case NVJPEG_STATUS_SUCCESS:
      return "NVJPEG_STATUS_SUCCESS";
    case NVJPEG_STATUS_NOT_INITIALIZED:
      return "NVJPEG_STATUS_NOT_INITIALIZED";
    case NVJPEG_STATUS_INVALID_PARAMETER:
      return "NVJPEG_STATUS_INVALID_PARAMETER";
    case NVJPEG_STATUS_BAD_JPEG:
      return "NVJPEG_STATUS_BAD_JPEG";
    case NVJPEG_STATUS_JPEG_NOT_SUPPORTED:
      return "NVJPEG_STATUS_JPEG_NOT_SUPPORTED";
    case NVJPEG_STATUS_ALLOCATOR_FAILURE:
      return "NVJPEG_STATUS_ALLOCATOR_FAILURE";
    case NVJPEG_STATUS_EXECUTION_FAILED:
      return "NVJPEG_STATUS_EXECUTION_FAILED";
    case NVJPEG_STATUS_ARCH_MISMATCH:
      return "NVJPEG_STATUS_ARCH_MISMATCH";
    case NVJPEG_STATUS_INTERNAL_ERROR:
      return "NVJPEG_STATUS_INTERNAL_ERROR";
    case NVJPEG_STATUS_IMPLEMENTATION_NOT_SUPPORTED:
      return "NVJPEG_STATUS_IMPLEMENTATION_NOT_SUPPORTED";
    case NVJPEG_STATUS_INCOMPLETE_BITSTREAM:
      return "NVJPEG_STATUS_INCOMPLETE_BITSTREAM";
    default:
      return "NVJPEG_STATUS_UNKNOWN";
  }
}

bool loadable(const char* name, std::string& error) {
  void* library = ::dlopen(name, RTLD_NOW | RTLD_LOCAL);
  if (library == nullptr) {
    error = ::dlerror();
    return false;
  }
  ::dlclose(library);
  return true;
}

}  // namespace feedrate::probe
