/*
 * What NVML's init and shutdown cost on a real host, wall and CPU, and what a held session changes: the
 * figures the stand-in library (native/src/test/c/fake_nvml.c) is calibrated from, and the reason the agent
 * holds NVML initialised between passes. Build and run on a GPU host:
 *   gcc -O2 -o nvml-session bench/nvml-session.c -ldl && ./nvml-session
 * Prints one line per figure: NAME WALL_US CPU_US (and the library's path, size and resident memory).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

static double us(clockid_t clock) {
    struct timespec t;
    clock_gettime(clock, &t);
    return t.tv_sec * 1e6 + t.tv_nsec / 1e3;
}

static long rss_kib(void) {
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    long v = -1;
    while (f && fgets(line, sizeof line, f)) {
        if (!strncmp(line, "VmRSS:", 6)) sscanf(line + 6, "%ld", &v);
    }
    if (f) fclose(f);
    return v;
}

typedef int (*nvml_fn)(void);
static nvml_fn init, shutdown_;

/* Runs f n times and prints the mean wall and CPU time of one. */
static void timed(const char *name, int n, void (*f)(void)) {
    double w = us(CLOCK_MONOTONIC), c = us(CLOCK_PROCESS_CPUTIME_ID);
    for (int i = 0; i < n; i++) f();
    printf("%-36s %10.1f %10.1f\n", name, (us(CLOCK_MONOTONIC) - w) / n, (us(CLOCK_PROCESS_CPUTIME_ID) - c) / n);
}

static void do_init(void) { init(); }
static void do_shutdown(void) { shutdown_(); }
static void init_and_shutdown(void) { init(); shutdown_(); }

int main(void) {
    long before = rss_kib();
    void *h = dlopen("libnvidia-ml.so.1", RTLD_NOW);
    if (!h) {
        printf("no library: %s\n", dlerror());
        return 1;
    }
    init = (nvml_fn) dlsym(h, "nvmlInit_v2");
    shutdown_ = (nvml_fn) dlsym(h, "nvmlShutdown");
    Dl_info info;
    struct stat st;
    if (dladdr((void *) init, &info) && info.dli_fname && stat(info.dli_fname, &st) == 0) {
        printf("library %s %lld bytes\n", info.dli_fname, (long long) st.st_size);
    }
    printf("%-36s %10s %10s\n", "figure", "wall_us", "cpu_us");
    timed("first init", 1, do_init);
    printf("rss after dlopen and first init: +%ld KiB\n", rss_kib() - before);
    timed("shutdown to zero", 1, do_shutdown);
    for (int i = 0; i < 5; i++) {
        timed("init from zero", 1, do_init);
        timed("shutdown to zero", 1, do_shutdown);
    }
    timed("init + shutdown from zero (20x)", 20, init_and_shutdown);
    init();
    timed("init + shutdown, held (200x)", 200, init_and_shutdown);
    shutdown_();
    printf("rss at the end: +%ld KiB\n", rss_kib() - before);
    return 0;
}
