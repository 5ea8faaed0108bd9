// Test helper for comparisons with PIL: decodes each file whole with decode::Decoder (the entry
// point the loader uses) and writes what came out.
//   feedrate-decode-files OUT_DIR FILE...
// prints one line per file, in order: "ok WIDTH HEIGHT" (and writes OUT_DIR/<k>.rgb, packed
// RGB) or "error CODE: MESSAGE", where k counts the files from 0.
#include <cstdio>
#include <fstream>
#include <iostream>
#include <iterator>
#include <string>
#include <vector>

#include "decode/decoder.h"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::cerr << "usage: feedrate-decode-files OUT_DIR FILE...\n";
    return 2;
  }
  const std::string out_dir = argv[1];
  feedrate::decode::Decoder decoder;
  std::vector<std::uint8_t> rgb;
  for (int k = 2; k < argc; ++k) {
    std::ifstream in(argv[k], std::ios::binary);
    if (!in) {
      std::cerr << "feedrate-decode-files: cannot open " << argv[k] << "\n";
      return 1;
    }
    const std::vector<std::uint8_t> bytes((std::istreambuf_iterator<char>(in)),
                                          std::istreambuf_iterator<char>());
    const feedrate::decode::DecodeStatus status = decoder.decode_full(bytes, rgb);
    if (!status.ok()) {
      std::cout << "error " << feedrate::decode::errc_name(status.code) << ": " << status.message
                << "\n";
      continue;
    }
    std::ofstream out(out_dir + "/" + std::to_string(k - 2) + ".rgb", std::ios::binary);
    out.write(reinterpret_cast<const char*>(rgb.data()), static_cast<std::streamsize>(rgb.size()));
    if (!out) {
      std::cerr << "feedrate-decode-files: cannot write to " << out_dir << "\n";
      return 1;
    }
    std::cout << "ok " << decoder.width() << " " << decoder.height() << "\n";
  }
  return 0;
}
