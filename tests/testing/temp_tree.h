// A temporary directory tree for source tests: files written from strings, removed at the end.
//
//   TempTree tree({{"op_kernel/moe.cpp", "..."}, {"op_kernel/gemm/block.h", "..."}});
//   RunCli({"scan", tree.path("op_kernel"), "-o", tree.path("map.json")});
#pragma once

#include <gtest/gtest.h>

#include <atomic>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <sstream>
#include <string>
#include <unistd.h>
#include <utility>
#include <vector>

namespace optrace::testing {

class TempTree {
 public:
  TempTree() : TempTree(std::initializer_list<std::pair<std::string, std::string>>{}) {}
  explicit TempTree(std::initializer_list<std::pair<std::string, std::string>> files) {
    static std::atomic<int> counter{0};
    root_ = std::filesystem::temp_directory_path() /
            ("optrace_src_" + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    std::filesystem::remove_all(root_);
    std::filesystem::create_directories(root_);
    for (const auto& [rel, text] : files) Write(rel, text);
  }
  ~TempTree() {
    std::error_code ec;
    std::filesystem::remove_all(root_, ec);
  }
  TempTree(const TempTree&) = delete;
  TempTree& operator=(const TempTree&) = delete;

  void Write(const std::string& rel, const std::string& text) const {
    std::filesystem::path p = root_ / rel;
    std::filesystem::create_directories(p.parent_path());
    std::ofstream(p, std::ios::binary) << text;
  }
  std::string Read(const std::string& rel) const {
    std::ifstream in(root_ / rel, std::ios::binary);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
  }
  std::string path(const std::string& rel = "") const { return (rel.empty() ? root_ : root_ / rel).string(); }

 private:
  std::filesystem::path root_;
};

}  // namespace optrace::testing
