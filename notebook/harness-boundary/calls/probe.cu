// Device probe for the judge/worker split: cross-process latency, the judge's fence, time
// slicing under a hog, IPC costs, the seccomp filter under the CUDA driver, SIGSTOP costs.
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "sandbox_filter.hpp"

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); exit(3);} } while (0)

using clk = std::chrono::steady_clock;
static double ms_since(clk::time_point t) { return std::chrono::duration<double, std::milli>(clk::now() - t).count(); }

__device__ __forceinline__ unsigned long long gtimer() { unsigned long long t; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t)); return t; }
__global__ void spin(unsigned long long ns) { unsigned long long t0 = gtimer(); while (gtimer() - t0 < ns) {} }
__global__ void tiny() {}
__global__ void copyk(const float4* a, float4* b, size_t n) { for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) b[i] = a[i]; }
__global__ void readk(const float4* a, size_t n, float* sink) { float s = 0; for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) s += a[i].x; if (s == 12345.f) *sink = s; }

enum : uint32_t { M_MAP = 1, M_SPIN, M_HOG, M_LONGHOG, M_SANDBOX, M_CALLLIB, M_MALLOC, M_COPY, M_UNMAPALL, M_QUIT, M_OK = 100, M_ERR, M_DONE };
struct Msg { uint32_t type; uint32_t a; uint64_t b; double x; cudaIpcMemHandle_t h; char text[256]; };

static void send_msg(int fd, const Msg& m) { if (write(fd, &m, sizeof m) != (ssize_t)sizeof m) { perror("write"); exit(5);} }
static bool recv_msg(int fd, Msg& m, bool spin_wait) {
  for (;;) {
    ssize_t n = recv(fd, &m, sizeof m, spin_wait ? MSG_DONTWAIT : 0);
    if (n == (ssize_t)sizeof m) return true;
    if (n == (ssize_t)sizeof(socratic::harness::SandboxRefusalRecord)) {
      auto* r = reinterpret_cast<socratic::harness::SandboxRefusalRecord*>(&m);
      fprintf(stderr, "REFUSED by sandbox: %s (arg0 %llu arg2 0x%llx)\n", socratic::harness::sandbox_syscall_name(r->syscall_nr).c_str(), (unsigned long long)r->arg0, (unsigned long long)r->arg2);
      m.type = M_ERR; snprintf(m.text, sizeof m.text, "sandbox refused %s", socratic::harness::sandbox_syscall_name(r->syscall_nr).c_str());
      return true;
    }
    if (n < 0 && (errno == EAGAIN || errno == EINTR)) continue;
    if (n == 0) return false;
    if (n < 0) { perror("recv"); return false; }
  }
}

// ---------------------------------------------------------------------------------- worker
static int worker_main(int fd) {
  prctl(PR_SET_PDEATHSIG, SIGKILL);
  std::string err;
  if (!socratic::harness::drop_privileges(err)) fprintf(stderr, "worker: drop_privileges: %s\n", err.c_str());
  CK(cudaSetDeviceFlags(cudaDeviceScheduleSpin));
  CK(cudaSetDevice(0)); CK(cudaFree(nullptr));
  cudaStream_t s; CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  cudaEvent_t e0, e1; CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1));
  tiny<<<1, 1, 0, s>>>(); CK(cudaStreamSynchronize(s));
  std::vector<void*> mapped;
  void* lib_entry = nullptr;
  Msg m{};
  while (recv_msg(fd, m, true)) {
    Msg r{}; r.type = M_OK;
    switch (m.type) {
      case M_MAP: { void* p = nullptr; auto t = clk::now(); cudaError_t e = cudaIpcOpenMemHandle(&p, m.h, cudaIpcMemLazyEnablePeerAccess); r.x = ms_since(t); if (e != cudaSuccess) { r.type = M_ERR; snprintf(r.text, sizeof r.text, "ipc open: %s", cudaGetErrorString(e)); } else mapped.push_back(p); r.b = mapped.size() - 1; break; }
      case M_UNMAPALL: { auto t = clk::now(); for (void* p : mapped) CK(cudaIpcCloseMemHandle(p)); r.x = ms_since(t); r.a = mapped.size(); mapped.clear(); break; }
      case M_SPIN: { CK(cudaEventRecord(e0, s)); spin<<<264, 128, 0, s>>>(m.b); CK(cudaEventRecord(e1, s)); CK(cudaStreamSynchronize(s)); float ms = 0; CK(cudaEventElapsedTime(&ms, e0, e1)); r.type = M_DONE; r.x = ms; break; }
      case M_COPY: { size_t n = m.b / 16; float4* a = (float4*)mapped.at(m.a); float4* b = a + n / 2; CK(cudaEventRecord(e0, s)); copyk<<<132 * 8, 256, 0, s>>>(a, b, n / 2); CK(cudaEventRecord(e1, s)); CK(cudaStreamSynchronize(s)); float ms = 0; CK(cudaEventElapsedTime(&ms, e0, e1)); r.type = M_DONE; r.x = ms; break; }
      case M_HOG: { for (uint32_t i = 0; i < m.a; ++i) spin<<<264, 128, 0, s>>>(m.b); r.type = M_DONE; break; }
      case M_LONGHOG: { spin<<<264, 128, 0, s>>>(m.b); r.type = M_DONE; break; }
      case M_MALLOC: { void* p = nullptr; cudaError_t e = cudaMalloc(&p, 64 << 20); if (e == cudaSuccess) e = cudaFree(p); if (e != cudaSuccess) { r.type = M_ERR; snprintf(r.text, sizeof r.text, "malloc: %s", cudaGetErrorString(e)); } break; }
      case M_SANDBOX: {
        std::string why;
        if (!socratic::harness::install_sandbox_reporter(fd, why) || !socratic::harness::install_sandbox_filter(socratic::harness::SandboxPhase::load, why)) { r.type = M_ERR; snprintf(r.text, sizeof r.text, "filter load: %s", why.c_str()); break; }
        void* lib = dlopen(m.text, RTLD_NOW | RTLD_LOCAL);
        if (!lib) { r.type = M_ERR; snprintf(r.text, sizeof r.text, "dlopen: %s", dlerror()); break; }
        lib_entry = dlsym(lib, "probe_entry");
        if (!socratic::harness::install_sandbox_filter(socratic::harness::SandboxPhase::run, why)) { r.type = M_ERR; snprintf(r.text, sizeof r.text, "filter run: %s", why.c_str()); break; }
        snprintf(r.text, sizeof r.text, "sandboxed, entry %p", lib_entry);
        break;
      }
      case M_CALLLIB: {
        using Fn = int (*)(float*, int, cudaStream_t);
        int rc = reinterpret_cast<Fn>(lib_entry)((float*)mapped.at(m.a), 1 << 20, s);
        cudaError_t e = cudaStreamSynchronize(s);
        if (rc || e != cudaSuccess) { r.type = M_ERR; snprintf(r.text, sizeof r.text, "lib call rc %d %s", rc, cudaGetErrorString(e)); }
        break;
      }
      case M_QUIT: send_msg(fd, r); return 0;
    }
    send_msg(fd, r);
  }
  return 0;
}

// ----------------------------------------------------------------------------------- judge
struct Worker { pid_t pid; int fd; };
static Worker spawn_worker(const char* self) {
  int sv[2]; if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sv)) { perror("socketpair"); exit(1); }
  pid_t pid = fork();
  if (pid == 0) {
    close(sv[0]); int fd = dup(sv[1]);
    char fdtext[16]; snprintf(fdtext, sizeof fdtext, "%d", fd);
    execl(self, self, "worker", fdtext, (char*)nullptr); _exit(127);
  }
  close(sv[1]); return {pid, sv[0]};
}
static Msg call(const Worker& w, Msg m, bool spin_wait = true) { send_msg(w.fd, m); Msg r{}; if (!recv_msg(w.fd, r, spin_wait)) { fprintf(stderr, "worker gone\n"); exit(6);} return r; }

struct Stats { double med, p10, p90, mad; };
static Stats stats(std::vector<double> v) {
  std::sort(v.begin(), v.end()); auto q = [&](double f) { return v[std::min(v.size() - 1, (size_t)(f * (v.size() - 1) + 0.5))]; };
  double med = q(0.5); std::vector<double> d; for (double x : v) d.push_back(std::fabs(x - med)); std::sort(d.begin(), d.end());
  return {med, q(0.1), q(0.9), d[d.size() / 2]};
}
static void print_stats(const char* what, const std::vector<double>& v, double scale = 1000.0, const char* unit = "us") {
  Stats s = stats(v); printf("  %-44s median %9.2f %s  p10 %9.2f  p90 %9.2f  MAD %7.2f  (n=%zu)\n", what, s.med * scale, unit, s.p10 * scale, s.p90 * scale, s.mad * scale, v.size());
}

int main(int argc, char** argv) {
  if (argc >= 3 && std::string(argv[1]) == "worker") return worker_main(atoi(argv[2]));
  const char* lib = argc >= 2 ? argv[1] : "probe_lib.so";
  CK(cudaSetDeviceFlags(cudaDeviceScheduleSpin));
  CK(cudaSetDevice(0)); CK(cudaFree(nullptr));
  cudaStream_t s; CK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
  cudaEvent_t e0, e1, ef; CK(cudaEventCreate(&e0)); CK(cudaEventCreate(&e1)); CK(cudaEventCreate(&ef));
  float* sink; CK(cudaMalloc(&sink, 4));
  size_t flush_bytes = 256u << 20; float4* flush; CK(cudaMalloc(&flush, flush_bytes));
  auto fence = [&]() { tiny<<<1, 1, 0, s>>>(); CK(cudaEventRecord(ef, s)); while (cudaEventQuery(ef) == cudaErrorNotReady) {} };
  auto do_flush = [&]() { readk<<<132 * 4, 256, 0, s>>>(flush, flush_bytes / 16, sink); CK(cudaStreamSynchronize(s)); };
  fence();
  Worker w = spawn_worker("/proc/self/exe");
  Msg hello{}; hello.type = M_MALLOC; Msg hr = call(w, hello, false); printf("worker up: %s\n", hr.type == M_OK ? "ok" : hr.text);

  const unsigned long long durs_us[] = {0, 20, 200, 2000};
  printf("E0 in-process (judge's own events and wall, spin kernel)\n");
  for (auto d : durs_us) {
    std::vector<double> ev, resid;
    for (int i = 0; i < 100; ++i) { auto t0 = clk::now(); CK(cudaEventRecord(e0, s)); spin<<<264, 128, 0, s>>>(d * 1000); CK(cudaEventRecord(e1, s)); CK(cudaStreamSynchronize(s)); double wall = ms_since(t0); float ms; CK(cudaEventElapsedTime(&ms, e0, e1)); ev.push_back(ms); resid.push_back(wall - ms); }
    char t[64]; snprintf(t, sizeof t, "D=%llu us event", d); print_stats(t, ev);
    snprintf(t, sizeof t, "D=%llu us wall-event", d); print_stats(t, resid);
  }
  printf("E1 worker (worker's events; judge wall to DONE and to its fence)\n");
  for (auto d : durs_us) {
    std::vector<double> ev, r_done, r_fence, after, blockmed;
    std::vector<double> blk;
    for (int i = 0; i < 200; ++i) {
      fence();
      Msg m{}; m.type = M_SPIN; m.b = d * 1000;
      auto t0 = clk::now(); Msg r = call(w, m); double t_done = ms_since(t0); fence(); double t_fence = ms_since(t0);
      ev.push_back(r.x); r_done.push_back(t_done - r.x); r_fence.push_back(t_fence - r.x); after.push_back(t_fence - t_done);
      blk.push_back(t_fence - r.x); if (blk.size() == 20) { blockmed.push_back(stats(blk).med); blk.clear(); }
    }
    char t[80];
    snprintf(t, sizeof t, "D=%llu event (worker)", d); print_stats(t, ev);
    snprintf(t, sizeof t, "D=%llu GO->DONE minus event", d); print_stats(t, r_done);
    snprintf(t, sizeof t, "D=%llu GO->fence minus event", d); print_stats(t, r_fence);
    snprintf(t, sizeof t, "D=%llu fence after DONE", d); print_stats(t, after);
    snprintf(t, sizeof t, "D=%llu medians of 20 (GO->fence - event)", d); print_stats(t, blockmed);
  }
  printf("E2 judge fence latency, worker idle\n");
  { std::vector<double> f; for (int i = 0; i < 300; ++i) { auto t0 = clk::now(); fence(); f.push_back(ms_since(t0)); } print_stats("fence", f); }
  printf("E3 hog in the worker, then the judge's fence (host latency) and a 20 us judge kernel's event time\n");
  for (int mode = 0; mode < 2; ++mode) {
    std::vector<double> lat, pk;
    for (int i = 0; i < 5; ++i) {
      Msg m{}; m.type = mode == 0 ? M_HOG : M_LONGHOG; m.a = 400; m.b = mode == 0 ? 50000 : 20000000ull;
      call(w, m);
      auto t0 = clk::now(); CK(cudaEventRecord(e0, s)); spin<<<1, 32, 0, s>>>(20000); CK(cudaEventRecord(e1, s)); CK(cudaStreamSynchronize(s)); lat.push_back(ms_since(t0)); float ms; CK(cudaEventElapsedTime(&ms, e0, e1)); pk.push_back(ms);
      usleep(40000);
    }
    print_stats(mode == 0 ? "400 x 50 us kernels: judge probe latency" : "one 20 ms kernel: judge probe latency", lat);
    print_stats(mode == 0 ? "400 x 50 us kernels: judge probe event" : "one 20 ms kernel: judge probe event", pk);
  }
  printf("E4 IPC: open and close 24 handles of 64 MB\n");
  {
    std::vector<void*> bufs(24); std::vector<double> open_ms;
    for (auto& b : bufs) CK(cudaMalloc(&b, 64 << 20));
    auto tall = clk::now();
    for (auto& b : bufs) { Msg m{}; m.type = M_MAP; CK(cudaIpcGetMemHandle(&m.h, b)); Msg r = call(w, m); if (r.type != M_OK) printf("  map failed: %s\n", r.text); open_ms.push_back(r.x); }
    double all_open = ms_since(tall);
    print_stats("cudaIpcOpenMemHandle (in worker)", open_ms, 1.0, "ms");
    Msg u{}; u.type = M_UNMAPALL; Msg r = call(w, u); printf("  24 opens round trip %.2f ms; closing all %u: %.3f ms\n", all_open, r.a, r.x);
    for (auto& b : bufs) CK(cudaFree(b));
  }
  printf("E8 memory-bound copy (128 MB read+write) after a judge flush: judge in-process vs worker\n");
  {
    void* buf; CK(cudaMalloc(&buf, 256 << 20));
    Msg m{}; m.type = M_MAP; CK(cudaIpcGetMemHandle(&m.h, buf)); Msg r = call(w, m); uint32_t idx = (uint32_t)r.b;
    std::vector<double> in, wk;
    size_t n = (256u << 20) / 16; float4* a = (float4*)buf;
    for (int i = 0; i < 60; ++i) {
      do_flush(); CK(cudaEventRecord(e0, s)); copyk<<<132 * 8, 256, 0, s>>>(a, a + n / 2, n / 2); CK(cudaEventRecord(e1, s)); CK(cudaStreamSynchronize(s)); float ms; CK(cudaEventElapsedTime(&ms, e0, e1)); in.push_back(ms);
      do_flush(); fence(); Msg c{}; c.type = M_COPY; c.a = idx; c.b = 256u << 20; Msg cr = call(w, c); wk.push_back(cr.x);
    }
    print_stats("copy in judge (events)", in, 1.0, "ms"); print_stats("copy in worker (events)", wk, 1.0, "ms");
    Msg u{}; u.type = M_UNMAPALL; call(w, u); CK(cudaFree(buf));
  }
  printf("E7 SIGSTOP/SIGCONT of the worker\n");
  {
    std::vector<double> t;
    for (int i = 0; i < 50; ++i) { auto t0 = clk::now(); kill(w.pid, SIGSTOP); int st; waitpid(w.pid, &st, WUNTRACED); kill(w.pid, SIGCONT); waitpid(w.pid, &st, WCONTINUED); t.push_back(ms_since(t0)); }
    print_stats("stop+wait+cont+wait", t);
  }
  printf("E5 sandbox: filter (load), dlopen %s, filter (run), then CUDA work\n", lib);
  {
    Msg m{}; m.type = M_SANDBOX; snprintf(m.text, sizeof m.text, "%s", lib); Msg r = call(w, m); printf("  sandbox: %s %s\n", r.type == M_OK ? "ok" : "FAILED", r.text);
    void* buf; CK(cudaMalloc(&buf, 16 << 20));
    Msg mm{}; mm.type = M_MAP; CK(cudaIpcGetMemHandle(&mm.h, buf)); r = call(w, mm); printf("  ipc open after filter: %s %s (%.3f ms)\n", r.type == M_OK ? "ok" : "FAILED", r.text, r.x);
    uint32_t idx = (uint32_t)r.b;
    Msg c{}; c.type = M_CALLLIB; c.a = idx; r = call(w, c); printf("  library call after filter: %s %s\n", r.type == M_OK ? "ok" : "FAILED", r.text);
    std::vector<float> host(4); CK(cudaMemcpy(host.data(), buf, 16, cudaMemcpyDeviceToHost)); printf("  values written by the library: %.1f %.1f %.1f\n", host[0], host[1], host[2]);
    Msg ma{}; ma.type = M_MALLOC; r = call(w, ma); printf("  cudaMalloc/cudaFree after filter: %s %s\n", r.type == M_OK ? "ok" : "FAILED", r.text);
    Msg sp{}; sp.type = M_SPIN; sp.b = 100000; r = call(w, sp); printf("  events + kernel after filter: %s %.3f ms\n", r.type == M_DONE ? "ok" : "FAILED", r.x);
    Msg u{}; u.type = M_UNMAPALL; r = call(w, u); printf("  ipc close after filter: %s %s\n", r.type == M_OK ? "ok" : "FAILED", r.text);
    Msg q{}; q.type = M_QUIT; call(w, q);
    int st = 0; waitpid(w.pid, &st, 0); printf("  worker exit: %s %d\n", WIFEXITED(st) ? "code" : "signal", WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
  }
  return 0;
}
