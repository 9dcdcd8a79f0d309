// Zip archives as torch.save writes them (stored or deflated entries): the central directory,
// local headers and inflation bounds (a small file declaring gigabytes, issue 29.5), then the
// whole torch reader on the same bytes.
#include <cstdint>
#include <string>
#include <string_view>

#include "collect/torch_reader.h"
#include "collect/zip_reader.h"
#include "fuzz_target.h"

OPTRACE_FUZZ_TARGET(fuzz_zip) {
  std::string_view bytes(reinterpret_cast<const char*>(data), size);
  auto zip = optrace::collect::ZipArchive::Open(bytes, "fuzz.pt");
  if (zip.ok()) {
    for (const optrace::collect::ZipEntry& e : zip->entries()) (void)zip->Read(e);
  }
  (void)optrace::collect::ReadTorchFile(bytes, "fuzz.pt");
  return 0;
}
