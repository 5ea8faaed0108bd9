// nvJPEG loaded at run time (bench/micro/nvjpeg_probe): the probe is built against the header of
// the `nvidia-nvjpeg` wheel and finds libnvjpeg.so.13 with dlopen, so that it builds where no
// nvJPEG is installed and says so cleanly where none can be loaded. Only the entry points the
// probe calls are resolved.
// Thread-safety: load() once; the table is then read-only and nvJPEG's own rules apply (a
// handle may be shared, a state belongs to one thread).
#pragma once

#include <nvjpeg.h>

#include <string>

namespace feedrate::probe {

struct NvJpeg {
  decltype(&::nvjpegGetProperty) GetProperty = nullptr;
  decltype(&::nvjpegCreateEx) CreateEx = nullptr;
  decltype(&::nvjpegDestroy) Destroy = nullptr;
  decltype(&::nvjpegGetHardwareDecoderInfo) GetHardwareDecoderInfo = nullptr;
  decltype(&::nvjpegJpegStateCreate) JpegStateCreate = nullptr;
  decltype(&::nvjpegJpegStateDestroy) JpegStateDestroy = nullptr;
  decltype(&::nvjpegGetImageInfo) GetImageInfo = nullptr;
  decltype(&::nvjpegDecode) Decode = nullptr;
  decltype(&::nvjpegDecodeBatchedInitialize) DecodeBatchedInitialize = nullptr;
  decltype(&::nvjpegDecodeBatched) DecodeBatched = nullptr;
  decltype(&::nvjpegJpegStreamCreate) JpegStreamCreate = nullptr;
  decltype(&::nvjpegJpegStreamDestroy) JpegStreamDestroy = nullptr;
  decltype(&::nvjpegJpegStreamParse) JpegStreamParse = nullptr;
  decltype(&::nvjpegDecodeBatchedSupported) DecodeBatchedSupported = nullptr;
  std::string path;  // what dlopen found
};

// Loads libnvjpeg.so.13 (else libnvjpeg.so); false with `error` set (dlerror's words, or the
// missing symbol) when it cannot.
bool load(NvJpeg& api, std::string& error);

// "NVJPEG_STATUS_..." for a status code.
const char* status_name(nvjpegStatus_t status);

// Whether a library can be dlopen'ed here (libnvcuvid.so.1: the hardware engine's path).
bool loadable(const char* name, std::string& error);

}  // namespace feedrate::probe
