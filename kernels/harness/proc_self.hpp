// What the runner process holds right now, read from /proc: the shared objects mapped into it
// (a library loaded by a name built at run time leaves no trace in the binary, only here) and
// its threads (a candidate that starts a thread to launch work later). Plain C++17.
#pragma once

#include <dirent.h>

#include <algorithm>
#include <fstream>
#include <istream>
#include <set>
#include <sstream>
#include <string>
#include <vector>

namespace socratic::harness {

/// True when a path names a shared object: its file name has ".so" at the end or followed by
/// a version (libfoo.so, libfoo.so.9, libfoo.so.9.1.0; not ld.so.cache).
inline bool looks_like_shared_object(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  const std::string file = slash == std::string::npos ? path : path.substr(slash + 1);
  for (std::size_t at = file.find(".so"); at != std::string::npos; at = file.find(".so", at + 1)) {
    const std::size_t after = at + 3;
    if (after == file.size()) return true;
    if (file[after] == '.' && after + 1 < file.size() && file[after + 1] >= '0' &&
        file[after + 1] <= '9')
      return true;
  }
  return false;
}

/// Shared objects named in a /proc/PID/maps text, each once, in order of first appearance.
inline std::vector<std::string> shared_objects_in_maps(std::istream& maps) {
  std::vector<std::string> out;
  std::set<std::string> seen;
  std::string line;
  while (std::getline(maps, line)) {
    // address perms offset dev inode pathname; none of the first five fields holds a '/', so
    // the path starts at the first one ("[heap]", "[stack]" and anonymous maps have none).
    std::istringstream fields(line);
    std::string address, perms, offset, dev, inode;
    if (!(fields >> address >> perms >> offset >> dev >> inode)) continue;
    const std::size_t slash = line.find('/');
    if (slash == std::string::npos) continue;
    std::string path = line.substr(slash);
    const std::string deleted = " (deleted)";
    if (path.size() > deleted.size() &&
        path.compare(path.size() - deleted.size(), deleted.size(), deleted) == 0)
      path.erase(path.size() - deleted.size());
    if (!looks_like_shared_object(path)) continue;
    if (seen.insert(path).second) out.push_back(path);
  }
  return out;
}

/// Shared objects mapped into this process now.
inline std::vector<std::string> mapped_shared_objects() {
  std::ifstream maps("/proc/self/maps");
  return shared_objects_in_maps(maps);
}

/// Entries of `now` that are not in `before`, in order.
inline std::vector<std::string> newly_mapped(const std::vector<std::string>& before,
                                             const std::vector<std::string>& now) {
  const std::set<std::string> old(before.begin(), before.end());
  std::vector<std::string> out;
  for (const auto& p : now)
    if (!old.count(p)) out.push_back(p);
  return out;
}

/// One thread of this process: its id and its name (/proc/self/task/TID/comm).
struct ThreadInfo {
  long tid = 0;
  std::string name;
};

/// The threads of this process now.
inline std::vector<ThreadInfo> list_threads() {
  std::vector<ThreadInfo> out;
  DIR* dir = opendir("/proc/self/task");
  if (!dir) return out;
  while (dirent* e = readdir(dir)) {
    const std::string entry = e->d_name;
    if (entry.empty() || entry.find_first_not_of("0123456789") != std::string::npos) continue;
    ThreadInfo t;
    t.tid = std::stol(entry);
    std::ifstream comm("/proc/self/task/" + entry + "/comm");
    std::getline(comm, t.name);
    out.push_back(t);
  }
  closedir(dir);
  std::sort(out.begin(), out.end(),
            [](const ThreadInfo& a, const ThreadInfo& b) { return a.tid < b.tid; });
  return out;
}

/// Threads in `now` that were not in `before` and that the CUDA driver did not start. The
/// driver names its threads "cuda..."; a thread started by a candidate inherits the name of
/// the thread that created it (the runner's main thread, "socratic-runner") unless renamed.
inline std::vector<ThreadInfo> foreign_new_threads(const std::vector<ThreadInfo>& before,
                                                   const std::vector<ThreadInfo>& now) {
  std::set<long> old;
  for (const auto& t : before) old.insert(t.tid);
  std::vector<ThreadInfo> out;
  for (const auto& t : now)
    if (!old.count(t.tid) && t.name.rfind("cuda", 0) != 0) out.push_back(t);
  return out;
}

/// "name (tid 123), other (tid 456)" for messages.
inline std::string describe_threads(const std::vector<ThreadInfo>& threads) {
  std::string out;
  for (const auto& t : threads) {
    if (!out.empty()) out += ", ";
    out += "\"" + t.name + "\" (tid " + std::to_string(t.tid) + ")";
  }
  return out;
}

}  // namespace socratic::harness
