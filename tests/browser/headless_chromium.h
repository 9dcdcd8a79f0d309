// What the headless-browser checks share: pass/fail lines, finding Debian's chromium, running it
// with the network and profile turned off, and counting markup in the DOM it dumps.
#pragma once

#include <unistd.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <sstream>
#include <string>

namespace optrace::browser {

inline int failures = 0;

inline void Check(bool ok, const std::string& what) {
  std::cout << (ok ? "  ok   " : "  FAIL ") << what << "\n";
  if (!ok) ++failures;
}

// OPTRACE_CHROMIUM, else chromium / chromium-browser on the PATH; "" when there is none.
inline std::string FindChromium() {
  if (const char* env = std::getenv("OPTRACE_CHROMIUM"); env && *env) return env;
  const char* path = std::getenv("PATH");
  std::stringstream dirs(path ? path : "/usr/bin");
  std::string dir;
  while (std::getline(dirs, dir, ':')) {
    for (const char* name : {"chromium", "chromium-browser"}) {
      std::filesystem::path p = std::filesystem::path(dir) / name;
      if (access(p.c_str(), X_OK) == 0) return p.string();
    }
  }
  return "";
}

inline std::string Quote(const std::string& s) {
  std::string q = "'";
  for (char c : s) q += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return q + "'";
}

// The command's stdout.
inline std::string Run(const std::string& cmd) {
  std::string out;
  FILE* p = popen(cmd.c_str(), "r");
  if (!p) return out;
  std::array<char, 65536> buf;
  size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), p)) > 0) out.append(buf.data(), n);
  pclose(p);
  return out;
}

// Headless chromium with everything that could reach the network or a profile turned off.
inline std::string Chromium(const std::string& chromium, const std::filesystem::path& profile,
                            const std::string& action, const std::string& url) {
  return "timeout 40 " + Quote(chromium) +
         " --headless --no-sandbox --disable-gpu --disable-quic --no-first-run --disable-background-networking"
         " --disable-component-update --disable-sync --disable-extensions --window-size=1400,1400 --user-data-dir=" +
         Quote(profile.string()) + " " + action + " " + Quote(url) + " 2>/dev/null";
}

inline size_t Count(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1)) ++n;
  return n;
}

}  // namespace optrace::browser
