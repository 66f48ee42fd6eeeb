// Cheat (in-process): finds the baseline's shared object among the process's mappings, resolves
// its entry point with dlopen(RTLD_NOLOAD) + dlsym, and redirects it to a slow honest RMSNorm
// run four times over, so that the baseline's time reads longer and the candidate's speedup
// grows. Where the baseline is not in its process, it tries to reach the process that holds
// it: ptrace on its parent. The candidate's own kernel is honest.
// Caught by: the boundary and the sandbox: the baseline runs in another worker process, so
// nothing of it is mapped here; ptrace is refused -> every scenario fails with flag
// `sandbox_violation` naming ptrace.
#include <dlfcn.h>
#include <sys/ptrace.h>

#include "attack_kit.cuh"

namespace {
int four_times_slower(const socratic_rmsnorm_args* a, cudaStream_t stream) {
  for (int i = 0; i < 3; ++i) honest::launch(a, stream, 0.5f);
  return honest::launch(a, stream);
}
bool tried = false;
}  // namespace

extern "C" int socratic_rmsnorm_forward(const socratic_rmsnorm_args* a, cudaStream_t stream) {
  if (!tried) {
    tried = true;
    bool found = false;
    Dl_info self{};
    dladdr(reinterpret_cast<const void*>(&four_times_slower), &self);
    const std::string own = self.dli_fname ? self.dli_fname : "";
    for (const auto& m : attack::mappings())
      if (m.path.find("baseline") != std::string::npos && m.path.find(".so") != std::string::npos &&
          m.path != own) {
        if (void* lib = dlopen(m.path.c_str(), RTLD_NOW | RTLD_NOLOAD))
          if (void* entry = dlsym(lib, "socratic_rmsnorm_forward")) {
            found = attack::redirect_with_mprotect(entry, reinterpret_cast<const void*>(&four_times_slower));
            break;
          }
      }
    if (!found) ptrace(PTRACE_ATTACH, getppid(), nullptr, nullptr);  // the process that holds it
  }
  return honest::launch(a, stream);
}
