/*
 * A stand-in for libnvidia-ml.so.1 so that the JNA bindings run for real on a machine without a GPU.
 * It exports the real NVML symbols with the real signatures and struct layouts (nvml.h), and serves
 * one of several hosts, chosen when nvmlInit runs:
 *   1. the FAKE_NVML_SCENARIO environment variable, else
 *   2. the first word of the file "fake-nvml-scenario" beside this library (found with dladdr), so
 *      that tests in one JVM can give each copy of the library its own host, else
 *   3. "h100".
 * Scenarios: h100, 8xa100-mig, mixed, lost, health, v100-pages, empty, init-error-N (nvmlInit returns N), and
 * NVLink topologies: 8xh100-nvswitch (18 links each to the NVSwitches), 8xh100-link-down (the same, GPU 3's link 7
 * inactive), 8xa100-nvswitch (12 links each), 4xv100-mesh (every pair of 4 V100 on 2 links), 2xa6000-bridge (two
 * PCIe cards on an NVLink bridge, 4 links), 4xgb200-nvl72 (a GB200 tray: 18 links each to the rack's switches,
 * registered with the multi-node fabric, clique 32766). Any scenario with "-noevents" after it answers Not Supported
 * to the event calls, as vGPU guests and old drivers do.
 *
 * Health and events (issue 38): each GPU reports retired pages pending, remapped rows, volatile ECC counts and
 * clock event reasons as its scenario sets them. Lines appended to the file "fake-nvml-events" beside this
 * library inject what happens to a GPU while a process runs; the library reads the file's new complete lines
 * when a wait on an event set wakes (it watches the folder with inotify, so a wait costs no CPU, as the real
 * library's poll on the driver does) and when a handle is asked for (a stat when nothing changed):
 *   xid INDEX N    an Xid critical error event with data N; 79 (fallen off the bus) also makes the GPU lost
 *   dbe INDEX      a double-bit ECC event; the GPU's volatile uncorrected count goes up by one
 *   lost INDEX     the GPU is lost (every call but the PCI info answers GPU_IS_LOST), without an event
 *   mig INDEX C P  the GPU's MIG mode is now C (current) and P (pending), 0 or 1, without an event: an admin's
 *                  `nvidia-smi -mig` (P), or a mode that took effect (C) with nothing else NVML shows changing
 *   ecc INDEX C P  the same for the GPU's ECC mode
 *   lifetime INDEX N  N more uncorrected ECC errors in the GPU's lifetime (aggregate) count alone, without an event:
 *                  the InfoROM written after the errors of an earlier driver load
 *   migs INDEX N   a MIG re-layout (`nvidia-smi mig -dci -dgi`, `-cgi -C`): the GPU now has N MIG devices (the first
 *                  N of its scenario's, then 1g.10gb ones), with a MIG configuration change event (nvml.h:
 *                  nvmlEventMigConfigChange), which every GPU that supports MIG can register for
 *   reload         a driver reload: what was injected is forgotten, every GPU answers as its scenario says
 * Built twice: normally, and with -DOLD_NVML, which leaves out every _v2/_v3 symbol, MIG and
 * architecture calls, and (to stand for a library without them) the NVLink, P2P and fabric calls; its nvmlDeviceGetPciInfo writes the v1 struct.
 *
 * It costs what the real library costs, so that a benchmark on a machine without a GPU predicts a real
 * host: CPU time and resident memory as measured on an H100 with driver 580.159.04
 * (shared/device/H100-MEASUREMENTS.md and docs/performance.md, "The stand-in NVML"). The first nvmlInit
 * of a process takes 10.8 ms (up to 30 ms seen) and leaves 18.2 MiB resident that nothing frees while the
 * library is loaded; an init from zero after that 1.7 ms; the shutdown that brings the count back to zero
 * 8.5 ms, 3.4 ms of it CPU and the rest waiting; an init or shutdown nested in a held one 0.5 us (it only
 * counts). The library file is as large as the real one (2.2 MB). MIG mode, max MIG devices, ECC mode and the power limit take
 * 170 us each, the ECC error count 14 us, memory info 5 us, the brand 2 us; the rest under 1 us, as here.
 * FAKE_NVML_COSTS=0 turns the costs off.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <poll.h>
#include <pthread.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

typedef int nvmlReturn_t;
#define NVML_SUCCESS 0
#define NVML_ERROR_UNINITIALIZED 1
#define NVML_ERROR_INVALID_ARGUMENT 2
#define NVML_ERROR_NOT_SUPPORTED 3
#define NVML_ERROR_NOT_FOUND 6
#define NVML_ERROR_INSUFFICIENT_SIZE 7
#define NVML_ERROR_GPU_IS_LOST 15
#define NVML_ERROR_ARGUMENT_VERSION_MISMATCH 25
#define NVML_ERROR_UNKNOWN 999

#define EXPORT __attribute__((visibility("default")))

/* nvml.h layouts */
typedef struct nvmlPciInfo_st {
    char busIdLegacy[16];
    unsigned int domain;
    unsigned int bus;
    unsigned int device;
    unsigned int pciDeviceId;
    unsigned int pciSubSystemId;
    char busId[32];
} nvmlPciInfo_t;

/* The struct nvmlDeviceGetPciInfo (v1) fills: a 16-byte busId and four reserved words. */
typedef struct nvmlPciInfoV1_st {
    char busId[16];
    unsigned int domain, bus, device, pciDeviceId, pciSubSystemId;
    unsigned int reserved0, reserved1, reserved2, reserved3;
} nvmlPciInfoV1_t;

typedef struct nvmlMemory_st {
    unsigned long long total;
    unsigned long long free;
    unsigned long long used;
} nvmlMemory_t;

typedef struct nvmlMemory_v2_st {
    unsigned int version;
    unsigned long long total;
    unsigned long long reserved;
    unsigned long long free;
    unsigned long long used;
} nvmlMemory_v2_t;
#define nvmlMemory_v2 (unsigned int)(sizeof(nvmlMemory_v2_t) | (2 << 24U))

typedef struct nvmlDeviceAttributesV2_st {
    unsigned int multiprocessorCount;
    unsigned int sharedCopyEngineCount;
    unsigned int sharedDecoderCount;
    unsigned int sharedEncoderCount;
    unsigned int sharedJpegCount;
    unsigned int sharedOfaCount;
    unsigned int gpuInstanceSliceCount;
    unsigned int computeInstanceSliceCount;
    unsigned long long memorySizeMB;
} nvmlDeviceAttributes_t;

typedef struct fake_device *nvmlDevice_t;

#define MIB (1024ULL * 1024ULL)
#define MAX_DEVICES 16
#define MAX_MIG 7

struct fake_device {
    int present;
    int lost;              /* every call but nvmlDeviceGetPciInfo* answers GPU_IS_LOST */
    int handle_error;      /* nvmlDeviceGetHandleByIndex answers this */
    char name[96], uuid[96], serial[30], part[80];
    unsigned int domain, bus, dev, pci_device_id, pci_subsystem_id;
    unsigned long long mem_total, mem_reserved;
    int cc_major, cc_minor;
    unsigned int arch, brand, power_mw;
    /* 0: the call answers Not Supported (a GeForce has no settable range; GB10 has no memory of its own) */
    unsigned int power_min_mw, power_max_mw, power_default_mw, power_enforced_mw;
    char vbios[32];
    unsigned int link_max_gen, link_cur_gen, link_max_width, link_cur_width;
    int unified_memory;    /* nvmlDeviceGetMemoryInfo* answer Not Supported, as on GB10 and Jetson */
    int ecc_supported; unsigned int ecc_current, ecc_pending; unsigned long long ecc_uncorrected;
    int mig_supported; unsigned int mig_current, mig_pending;
    unsigned long long ecc_volatile_uncorrected;
    /* 1: the GPU retires pages (before Ampere), 2: it remaps rows (Ampere and later), 0: neither (GeForce) */
    int memory_repair; unsigned int pages_pending;
    unsigned int rows_corrected, rows_uncorrected, rows_pending, rows_failure;
    unsigned long long clock_reasons;
    /* MIG devices of a full GPU, or for a MIG device its ids */
    struct fake_device *migs;
    int mig_count;
    int is_mig; unsigned int gi, ci, sm;
    /* NVLink: how many links the GPU has (0: Not Supported), each one's state and far end (a device index, or
       LINK_TO_SWITCH), the version all of them report (nvmlNvlinkVersion_t) */
    unsigned int nvlinks, nvlink_version;
    unsigned char link_active[18];
    int link_remote[18];
    /* multi-node NVLink: 0 answers Not Supported */
    int fabric; unsigned char cluster_uuid[16]; unsigned int clique; unsigned char fabric_state;
};
#define LINK_TO_SWITCH (-1)

static struct fake_device devices[MAX_DEVICES];
static struct fake_device mig_devices[MAX_DEVICES][MAX_MIG];
static unsigned int device_count;
static int initialized;
static char scenario[64];

static const char *error_string(nvmlReturn_t r) {
    switch (r) {
    case 0: return "Success";
    case 1: return "Uninitialized";
    case 2: return "Invalid Argument";
    case 3: return "Not Supported";
    case 4: return "Insufficient Permissions";
    case 5: return "Already Initialized";
    case 6: return "Not Found";
    case 7: return "Insufficient Size";
    case 9: return "Driver Not Loaded";
    case 12: return "NVML Shared Library Not Found";
    case 13: return "Function Not Found";
    case 15: return "GPU is lost";
    case 16: return "GPU requires reset";
    case 17: return "GPU access blocked by the operating system";
    case 18: return "RM has detected an NVML/RM version mismatch.";
    case 25: return "Argument version mismatch";
    default: return "Unknown Error";
    }
}

static void read_scenario(void) {
    const char *env = getenv("FAKE_NVML_SCENARIO");
    if (env && *env) {
        snprintf(scenario, sizeof scenario, "%s", env);
        return;
    }
    snprintf(scenario, sizeof scenario, "h100");
    Dl_info info;
    if (dladdr((void *) read_scenario, &info) && info.dli_fname) {
        char path[4096];
        snprintf(path, sizeof path, "%s", info.dli_fname);
        char *slash = strrchr(path, '/');
        if (slash) {
            snprintf(slash + 1, sizeof path - (size_t) (slash + 1 - path), "fake-nvml-scenario");
            FILE *f = fopen(path, "r");
            if (f) {
                char word[64];
                if (fscanf(f, "%63s", word) == 1) {
                    snprintf(scenario, sizeof scenario, "%s", word);
                }
                fclose(f);
            }
        }
    }
}

static struct fake_device *add(const char *name, unsigned int domain, unsigned int bus, unsigned int dev,
                               unsigned int pci_device_id, unsigned int pci_subsystem_id, unsigned long long mem_mib) {
    struct fake_device *d = &devices[device_count];
    memset(d, 0, sizeof *d);
    d->present = 1;
    snprintf(d->name, sizeof d->name, "%s", name);
    snprintf(d->uuid, sizeof d->uuid, "GPU-%08x-%04x-%04x-%04x-%012x", 0x5e1f0000u + device_count * 0x1111u + bus,
             dev, domain, pci_device_id >> 16, 0xabc000u + bus);
    snprintf(d->serial, sizeof d->serial, "16549220%05u", 1000 + device_count * 7 + bus);
    snprintf(d->part, sizeof d->part, "692-2G520-0200-00%u", device_count);
    d->domain = domain; d->bus = bus; d->dev = dev;
    d->pci_device_id = pci_device_id; d->pci_subsystem_id = pci_subsystem_id;
    d->mem_total = mem_mib * MIB; d->mem_reserved = 328 * MIB;
    d->ecc_supported = 1; d->ecc_current = 1; d->ecc_pending = 1;
    d->mig_supported = 1;
    d->brand = 14; /* NVML_BRAND_NVIDIA */
    d->migs = mig_devices[device_count];
    device_count++;
    return d;
}

/* An idle data-centre GPU: its link trained at the full width, the speed down to Gen1 until work arrives. */
static struct fake_device *hopper(struct fake_device *d) {
    d->cc_major = 9; d->cc_minor = 0; d->arch = 9; d->power_mw = 700000;
    d->power_min_mw = 200000; d->power_max_mw = 700000; d->power_default_mw = 700000; d->power_enforced_mw = 700000;
    snprintf(d->vbios, sizeof d->vbios, "96.00.99.00.01");
    d->link_max_gen = 5; d->link_cur_gen = 1; d->link_max_width = 16; d->link_cur_width = 16;
    d->memory_repair = 2; d->clock_reasons = 0x1; /* nvmlClocksEventReasonGpuIdle */
    return d;
}

static struct fake_device *ampere(struct fake_device *d) {
    d->cc_major = 8; d->cc_minor = 0; d->arch = 7; d->power_mw = 400000;
    d->power_min_mw = 100000; d->power_max_mw = 400000; d->power_default_mw = 400000; d->power_enforced_mw = 400000;
    snprintf(d->vbios, sizeof d->vbios, "92.00.45.00.04");
    d->link_max_gen = 4; d->link_cur_gen = 4; d->link_max_width = 16; d->link_cur_width = 16;
    d->memory_repair = 2; d->clock_reasons = 0x1;
    return d;
}

static void add_mig(struct fake_device *parent, const char *profile, unsigned int gi, unsigned int ci,
                    unsigned long long mem_mib, unsigned int sm) {
    struct fake_device *m = &parent->migs[parent->mig_count];
    memset(m, 0, sizeof *m);
    m->present = 1;
    m->is_mig = 1;
    snprintf(m->name, sizeof m->name, "%s MIG %s", parent->name, profile);
    snprintf(m->uuid, sizeof m->uuid, "MIG-%08x-%04x-%04x-%04x-%012x", 0x3160000u + parent->bus * 16 + gi, gi, ci,
             parent->bus, 0x77000u + (unsigned) parent->mig_count);
    m->mem_total = mem_mib * MIB;
    m->gi = gi; m->ci = ci; m->sm = sm;
    m->cc_major = parent->cc_major; m->cc_minor = parent->cc_minor;
    parent->mig_count++;
}

/* Every one of the GPU's links, active, to the node's NVSwitches. */
static struct fake_device *on_switch(struct fake_device *d, unsigned int links, unsigned int version) {
    d->nvlinks = links; d->nvlink_version = version;
    for (unsigned int l = 0; l < links; l++) {
        d->link_active[l] = 1; d->link_remote[l] = LINK_TO_SWITCH;
    }
    return d;
}

/* `count` more active links between devices a and b, at both ends. */
static void join(unsigned int a, unsigned int b, unsigned int count, unsigned int version) {
    for (unsigned int i = 0; i < count; i++) {
        struct fake_device *x = &devices[a], *y = &devices[b];
        x->link_active[x->nvlinks] = 1; x->link_remote[x->nvlinks++] = (int) b; x->nvlink_version = version;
        y->link_active[y->nvlinks] = 1; y->link_remote[y->nvlinks++] = (int) a; y->nvlink_version = version;
    }
}

static void eight_h100(void) {
    static const unsigned int buses[] = {0x18, 0x2a, 0x3a, 0x5d, 0x9a, 0xab, 0xba, 0xdb};
    for (int i = 0; i < 8; i++) {
        on_switch(hopper(add("NVIDIA H100 80GB HBM3", 0, buses[i], 0, 0x233010de, 0x16c110de, 81559)), 18, 6);
    }
}

static void build_scenario(void) {
    memset(devices, 0, sizeof devices);
    device_count = 0;
    if (strcmp(scenario, "h100") == 0) {
        hopper(add("NVIDIA H100 80GB HBM3", 0, 0x18, 0, 0x233010de, 0x16c110de, 81559));
    } else if (strcmp(scenario, "8xa100-mig") == 0) {
        static const unsigned int buses[] = {0x07, 0x0f, 0x47, 0x4e, 0x87, 0x90, 0xb7, 0xbd};
        for (int i = 0; i < 8; i++) {
            struct fake_device *d = ampere(add("NVIDIA A100-SXM4-80GB", 0, buses[i], 0, 0x20b210de, 0x147f10de, 81920));
            d->mem_reserved = 0;
            if (i == 0) {
                d->mig_current = 1; d->mig_pending = 1;
                for (unsigned int gi = 7; gi <= 13; gi++) {
                    add_mig(d, "1g.10gb", gi, 0, 9728, 14);
                }
            } else if (i == 1) {
                d->mig_current = 1; d->mig_pending = 1;
                add_mig(d, "3g.40gb", 1, 0, 40192, 42);
                add_mig(d, "3g.40gb", 2, 0, 40192, 42);
            } else if (i == 2) {
                d->mig_pending = 1; /* enabled, takes effect after a reset */
            }
        }
    } else if (strcmp(scenario, "mixed") == 0) {
        hopper(add("NVIDIA H100 PCIe", 0, 0x01, 0, 0x233110de, 0x162610de, 81559))->power_mw = 350000;
        struct fake_device *g = add("NVIDIA GeForce RTX 4090", 0, 0x41, 0, 0x268410de, 0x40bf1458, 24564);
        g->cc_major = 8; g->cc_minor = 9; g->arch = 8; g->power_mw = 450000; g->brand = 15;
        g->ecc_supported = 0; g->mig_supported = 0; g->serial[0] = '\0'; g->part[0] = '\0';
        g->power_min_mw = 150000; g->power_max_mw = 600000; g->power_default_mw = 450000; g->power_enforced_mw = 450000;
        g->link_max_gen = 4; g->link_cur_gen = 4; g->link_max_width = 16; g->link_cur_width = 8; /* trained at x8 */
        struct fake_device *a = ampere(add("NVIDIA A100-PCIE-40GB", 1, 0x81, 0, 0x20f110de, 0x145f10de, 40960));
        a->power_mw = 250000; a->ecc_uncorrected = 3;
        a->power_max_mw = 250000; a->power_default_mw = 250000; a->power_enforced_mw = 250000;
    } else if (strcmp(scenario, "lost") == 0) {
        static const unsigned int buses[] = {0x19, 0x3b, 0x4c, 0x5d};
        for (int i = 0; i < 4; i++) {
            hopper(add("NVIDIA H100 80GB HBM3", 0, buses[i], 0, 0x233010de, 0x16c110de, 81559));
        }
        devices[1].lost = 1;
        devices[3].handle_error = NVML_ERROR_UNKNOWN;
    } else if (strcmp(scenario, "gb10") == 0) {
        /* DGX Spark: the GPU shares the host's memory, and NVML says Not Supported for its size */
        struct fake_device *d = add("NVIDIA GB10", 0x000f, 0x01, 0, 0x2e1210de, 0x000010de, 0);
        d->cc_major = 12; d->cc_minor = 1; d->arch = 10; d->unified_memory = 1;
        d->ecc_supported = 0; d->mig_supported = 0;
        snprintf(d->vbios, sizeof d->vbios, "9A.0B.00.00.01");
    } else if (strcmp(scenario, "8xh100-nvswitch") == 0) {
        eight_h100();
    } else if (strcmp(scenario, "8xh100-link-down") == 0) {
        eight_h100();
        devices[3].link_active[7] = 0;
    } else if (strcmp(scenario, "8xa100-nvswitch") == 0) {
        static const unsigned int buses[] = {0x07, 0x0f, 0x47, 0x4e, 0x87, 0x90, 0xb7, 0xbd};
        for (int i = 0; i < 8; i++) {
            on_switch(ampere(add("NVIDIA A100-SXM4-80GB", 0, buses[i], 0, 0x20b210de, 0x147f10de, 81920)), 12, 4);
        }
    } else if (strcmp(scenario, "4xv100-mesh") == 0) {
        static const unsigned int buses[] = {0x1a, 0x1b, 0x3d, 0x3e};
        for (int i = 0; i < 4; i++) {
            struct fake_device *d = add("Tesla V100-SXM2-32GB", 0, buses[i], 0, 0x1db510de, 0x124910de, 32768);
            d->cc_major = 7; d->cc_minor = 0; d->arch = 5; d->power_mw = 300000; d->mig_supported = 0;
            d->power_min_mw = 150000; d->power_max_mw = 300000; d->power_default_mw = 300000; d->power_enforced_mw = 300000;
            snprintf(d->vbios, sizeof d->vbios, "88.00.80.00.01");
            d->link_max_gen = 3; d->link_cur_gen = 3; d->link_max_width = 16; d->link_cur_width = 16;
        }
        for (unsigned int a = 0; a < 4; a++) {
            for (unsigned int b = a + 1; b < 4; b++) {
                join(a, b, 2, 2);
            }
        }
    } else if (strcmp(scenario, "2xa6000-bridge") == 0) {
        for (unsigned int i = 0; i < 2; i++) {
            struct fake_device *g = add("NVIDIA RTX A6000", 0, i == 0 ? 0x4f : 0x52, 0, 0x223010de, 0x145910de, 49140);
            g->cc_major = 8; g->cc_minor = 6; g->arch = 7; g->power_mw = 300000; g->brand = 12; g->mig_supported = 0;
            g->power_min_mw = 100000; g->power_max_mw = 300000; g->power_default_mw = 300000; g->power_enforced_mw = 300000;
            g->link_max_gen = 4; g->link_cur_gen = 1; g->link_max_width = 16; g->link_cur_width = 16;
        }
        join(0, 1, 4, 4);
    } else if (strcmp(scenario, "4xgb200-nvl72") == 0) {
        static const unsigned char uuid[16] = {0x92, 0x77, 0xd3, 0x99, 0x06, 0x74, 0x44, 0xa9,
                                               0xb6, 0x4e, 0xd8, 0x5b, 0xb1, 0x9c, 0xe2, 0xb0};
        for (unsigned int i = 0; i < 4; i++) {
            struct fake_device *d = on_switch(hopper(add("NVIDIA GB200", 0x0008 + i, 0x01, 0, 0x294110de, 0x20e610de,
                                                         189471)), 18, 7);
            d->cc_major = 10; d->cc_minor = 0; d->arch = 10;
            d->fabric = 1; memcpy(d->cluster_uuid, uuid, 16); d->clique = 32766; d->fabric_state = 3;
        }
    } else if (strcmp(scenario, "health") == 0) {
        /* one healthy H100 and one with each thing the pass-time checks look for */
        static const unsigned int buses[] = {0x19, 0x3b, 0x4c, 0x5d, 0x9b};
        for (int i = 0; i < 5; i++) {
            hopper(add("NVIDIA H100 80GB HBM3", 0, buses[i], 0, 0x233010de, 0x16c110de, 81559));
        }
        devices[1].rows_corrected = 2; devices[1].rows_pending = 1;            /* degraded: RowsPendingRemap */
        devices[2].rows_uncorrected = 1; devices[2].rows_failure = 1;          /* failed: RowRemapFailure */
        devices[2].ecc_volatile_uncorrected = 4;                               /* and UncorrectableEcc */
        devices[3].clock_reasons = 0x8 | 0x40;                                 /* degraded: HardwareSlowdown */
        devices[4].clock_reasons = 0x4 | 0x20;                                 /* power cap, SW thermal: healthy */
    } else if (strcmp(scenario, "v100-pages") == 0) {
        /* a Volta GPU retires pages instead of remapping rows */
        struct fake_device *d = add("Tesla V100-SXM2-16GB", 0, 0x1a, 0, 0x1db110de, 0x121210de, 16384);
        d->cc_major = 7; d->cc_minor = 0; d->arch = 5; d->power_mw = 300000; d->memory_repair = 1;
        d->pages_pending = 1;
        d->link_max_gen = 3; d->link_cur_gen = 3; d->link_max_width = 16; d->link_cur_width = 16;
    } else if (strcmp(scenario, "empty") == 0) {
        /* the driver is loaded and sees no GPU */
    }
}


/* ---- injected state and events (see the top of this file) ---- */

#define MAX_EVENTS 256
#define MAX_SETS 8
struct fake_event { unsigned int index; unsigned long long type, data; };
struct fake_set {
    int used, inotify_fd;
    unsigned long long mask[MAX_DEVICES];
    unsigned int cursor;
};
static struct fake_event event_log[MAX_EVENTS];
static unsigned int event_count;
static struct fake_set sets[MAX_SETS];
static int events_unsupported;
/* What was injected and holds until "reload": kept apart from the scenario, which each init from zero rebuilds. */
static int injected_lost[MAX_DEVICES];
static unsigned long long injected_dbe[MAX_DEVICES];
static unsigned long long injected_lifetime[MAX_DEVICES];
/* Injected MIG and ECC modes: 0 where nothing was injected, else 4 | current << 1 | pending. */
static unsigned int injected_mig[MAX_DEVICES];
static unsigned int injected_ecc[MAX_DEVICES];
/* Injected MIG device counts: 0 where nothing was injected, else 1 + the count. */
static unsigned int injected_migs[MAX_DEVICES];
static long control_consumed;
static struct timespec control_mtime;
static long control_size = -1;
static pthread_mutex_t control_lock = PTHREAD_MUTEX_INITIALIZER;

static void library_dir_file(char *path, size_t size, const char *name) {
    path[0] = '\0';
    Dl_info info;
    if (dladdr((void *) library_dir_file, &info) && info.dli_fname) {
        snprintf(path, size, "%s", info.dli_fname);
        char *slash = strrchr(path, '/');
        if (slash) {
            snprintf(slash + 1, size - (size_t) (slash + 1 - path), "%s", name);
            return;
        }
    }
    snprintf(path, size, "%s", name);
}

static void log_event(unsigned int index, unsigned long long type, unsigned long long data) {
    if (event_count < MAX_EVENTS) {
        event_log[event_count].index = index;
        event_log[event_count].type = type;
        event_log[event_count].data = data;
        event_count++;
    }
}

/* Applies what was injected to the devices the scenario built. */
static void apply_injected(void) {
    for (unsigned int i = 0; i < device_count; i++) {
        if (injected_lost[i]) devices[i].lost = 1;
        if (injected_mig[i]) {
            devices[i].mig_current = injected_mig[i] >> 1 & 1; devices[i].mig_pending = injected_mig[i] & 1;
        }
        if (injected_ecc[i]) {
            devices[i].ecc_current = injected_ecc[i] >> 1 & 1; devices[i].ecc_pending = injected_ecc[i] & 1;
        }
        if (injected_migs[i]) {
            int want = (int) injected_migs[i] - 1;
            if (devices[i].mig_count > want) devices[i].mig_count = want;
            while (devices[i].mig_count < want) {
                add_mig(&devices[i], "1g.10gb", 7 + (unsigned) devices[i].mig_count, 0, 9728, 14);
            }
        }
    }
}

static void forget_injected(void) {
    memset(injected_lost, 0, sizeof injected_lost);
    memset(injected_dbe, 0, sizeof injected_dbe);
    memset(injected_lifetime, 0, sizeof injected_lifetime);
    memset(injected_mig, 0, sizeof injected_mig);
    memset(injected_ecc, 0, sizeof injected_ecc);
    memset(injected_migs, 0, sizeof injected_migs);
}

/* Reads the control file's new complete lines; a stat when it did not change. Call with control_lock held. */
static void read_control(void) {
    char path[4096];
    library_dir_file(path, sizeof path, "fake-nvml-events");
    struct stat st;
    if (stat(path, &st) != 0) return;
    if (st.st_size == control_size && st.st_mtim.tv_sec == control_mtime.tv_sec
            && st.st_mtim.tv_nsec == control_mtime.tv_nsec) {
        return;
    }
    control_size = st.st_size;
    control_mtime = st.st_mtim;
    FILE *f = fopen(path, "r");
    if (!f) return;
    if (fseek(f, control_consumed, SEEK_SET) != 0) { fclose(f); return; }
    char line[256];
    while (fgets(line, sizeof line, f)) {
        size_t n = strlen(line);
        if (n == 0 || line[n - 1] != '\n') break; /* a line still being written: read it next time */
        control_consumed += (long) n;
        unsigned int index, current, pending; unsigned long long xid;
        if (sscanf(line, "xid %u %llu", &index, &xid) == 2 && index < MAX_DEVICES) {
            log_event(index, 0x8, xid);
            if (xid == 79) injected_lost[index] = 1;
        } else if (sscanf(line, "dbe %u", &index) == 1 && index < MAX_DEVICES) {
            injected_dbe[index]++;
            log_event(index, 0x2, 0);
        } else if (sscanf(line, "lifetime %u %llu", &index, &xid) == 2 && index < MAX_DEVICES) {
            injected_lifetime[index] += xid;
        } else if (sscanf(line, "lost %u", &index) == 1 && index < MAX_DEVICES) {
            injected_lost[index] = 1;
        } else if (sscanf(line, "mig %u %u %u", &index, &current, &pending) == 3 && index < MAX_DEVICES) {
            injected_mig[index] = 4u | (current ? 2u : 0u) | (pending ? 1u : 0u);
        } else if (sscanf(line, "ecc %u %u %u", &index, &current, &pending) == 3 && index < MAX_DEVICES) {
            injected_ecc[index] = 4u | (current ? 2u : 0u) | (pending ? 1u : 0u);
        } else if (sscanf(line, "migs %u %u", &index, &current) == 2 && index < MAX_DEVICES && current <= MAX_MIG) {
            injected_migs[index] = 1u + current;
            log_event(index, 0x100, 0); /* nvmlEventMigConfigChange */
        } else if (strncmp(line, "reload", 6) == 0) {
            forget_injected();
            build_scenario(); /* every GPU as its scenario has it, handles still valid: the array stays */
        }
    }
    fclose(f);
    apply_injected();
}

static int fill(char *out, unsigned int length, const char *value) {
    if (out == NULL) return NVML_ERROR_INVALID_ARGUMENT;
    if (value[0] == '\0') return NVML_ERROR_NOT_SUPPORTED;
    if (strlen(value) + 1 > length) return NVML_ERROR_INSUFFICIENT_SIZE;
    memcpy(out, value, strlen(value) + 1);
    return NVML_SUCCESS;
}

/* The checks every device call starts with; 0 when the call may go on. */
static nvmlReturn_t check(nvmlDevice_t d, const void *out) {
    if (!initialized) return NVML_ERROR_UNINITIALIZED;
    if (d == NULL || !d->present || out == NULL) return NVML_ERROR_INVALID_ARGUMENT;
    if (d->lost) return NVML_ERROR_GPU_IS_LOST;
    return NVML_SUCCESS;
}

/* What real NVML costs (see the top of this file), in microseconds of CPU time. */
#define COST_FIRST_INIT_US 10800
#define COST_INIT_US 1700
#define COST_SHUTDOWN_US 3400
#define COST_SHUTDOWN_WAIT_US 5000
#define COST_SLOW_CALL_US 170
#define COST_ECC_COUNT_US 14
#define COST_MEMORY_INFO_US 5
#define COST_BRAND_US 2
#define RESIDENT_AFTER_FIRST_INIT (18 * MIB + MIB / 5)

static int costs_read, costs_on;
/* The real libnvidia-ml.so.1 of driver 580.159.04 is 2,291,896 bytes: mapped, though not all read. */
__attribute__((used)) static const unsigned char as_large_as_the_real_library[2250000] = {1};
static char *driver_state;  /* what the real library keeps after its first init: never freed */

static long cpu_us(void) {
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return t.tv_sec * 1000000L + t.tv_nsec / 1000L;
}

/* Spends this thread's CPU until `us` have passed since `start` (cpu_us()), as long as the real call takes. */
static void spend_since(long start, long us) {
    if (!costs_read) {
        const char *env = getenv("FAKE_NVML_COSTS");
        costs_on = !(env && strcmp(env, "0") == 0);
        costs_read = 1;
    }
    if (!costs_on) return;
    while (cpu_us() - start < us) {
    }
}

static void spend(long us) { spend_since(cpu_us(), us); }

/* NVML is thread-safe: an agent's passes and its event watcher init and shut down on threads of their own. */
static pthread_mutex_t init_lock = PTHREAD_MUTEX_INITIALIZER;

static nvmlReturn_t init_locked(void);

static nvmlReturn_t init(void) {
    pthread_mutex_lock(&init_lock);
    nvmlReturn_t r = init_locked();
    pthread_mutex_unlock(&init_lock);
    return r;
}

static nvmlReturn_t init_locked(void) {
    if (initialized) {
        initialized++;
        return NVML_SUCCESS;
    }
    if (driver_state == NULL) {
        /* The memory the real first init takes is part of its time. */
        long start = cpu_us();
        spend(0);
        if (costs_on && (driver_state = malloc(RESIDENT_AFTER_FIRST_INIT)) != NULL) {
            memset(driver_state, 1, RESIDENT_AFTER_FIRST_INIT);
        }
        spend_since(start, COST_FIRST_INIT_US);
    } else {
        spend(COST_INIT_US);
    }
    read_scenario();
    int code;
    if (sscanf(scenario, "init-error-%d", &code) == 1) {
        return code;
    }
    char *noevents = strstr(scenario, "-noevents");
    events_unsupported = noevents != NULL;
    if (noevents) *noevents = '\0';
    build_scenario();
    pthread_mutex_lock(&control_lock);
    read_control();
    apply_injected();
    pthread_mutex_unlock(&control_lock);
    initialized = 1;
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlInit(void) { return init(); }
#ifndef OLD_NVML
EXPORT nvmlReturn_t nvmlInit_v2(void) { return init(); }
#endif

EXPORT nvmlReturn_t nvmlShutdown(void) {
    pthread_mutex_lock(&init_lock);
    if (!initialized) {
        pthread_mutex_unlock(&init_lock);
        return NVML_ERROR_UNINITIALIZED;
    }
    initialized--;
    if (!initialized) {
        spend(COST_SHUTDOWN_US);
        if (costs_on) {
            struct timespec wait = {0, COST_SHUTDOWN_WAIT_US * 1000L};
            nanosleep(&wait, NULL);
        }
    }
    pthread_mutex_unlock(&init_lock);
    return NVML_SUCCESS;
}

/* How often this process asked for an error's text: a test checks that a held session's pulses stop asking. */
static unsigned int error_string_calls;

EXPORT unsigned int fakeNvmlErrorStringCalls(void) {
    return __atomic_load_n(&error_string_calls, __ATOMIC_SEQ_CST);
}

EXPORT const char *nvmlErrorString(nvmlReturn_t result) {
    __atomic_add_fetch(&error_string_calls, 1, __ATOMIC_SEQ_CST);
    return error_string(result);
}

/* Not NVML's: how many inits are outstanding, for the tests of a held session. */
EXPORT int fakeNvmlInitCount(void) { return initialized; }

EXPORT nvmlReturn_t nvmlSystemGetDriverVersion(char *version, unsigned int length) {
    if (!initialized) return NVML_ERROR_UNINITIALIZED;
#ifdef OLD_NVML
    return fill(version, length, "418.226.00");
#else
    return fill(version, length, "550.54.15");
#endif
}

EXPORT nvmlReturn_t nvmlSystemGetNVMLVersion(char *version, unsigned int length) {
    if (!initialized) return NVML_ERROR_UNINITIALIZED;
#ifdef OLD_NVML
    return fill(version, length, "10.418.226.00");
#else
    return fill(version, length, "12.550.54.15");
#endif
}

EXPORT nvmlReturn_t nvmlSystemGetCudaDriverVersion(int *v) {
    if (!initialized) return NVML_ERROR_UNINITIALIZED;
    if (v == NULL) return NVML_ERROR_INVALID_ARGUMENT;
#ifdef OLD_NVML
    *v = 10010;
#else
    *v = 12040;
#endif
    return NVML_SUCCESS;
}

/* How often this process asked for a GPU's handle by index or a device's UUID: a test checks that a held session's
   pulse asks them of one GPU in turn. */
static unsigned int identity_calls;

EXPORT unsigned int fakeNvmlIdentityCalls(void) {
    return __atomic_load_n(&identity_calls, __ATOMIC_SEQ_CST);
}

/* The count reads the control file too (a stat when nothing changed), as a handle does: a held session's pulse starts
   with the count, and holds its handles. */
static nvmlReturn_t count(unsigned int *n) {
    if (!initialized) return NVML_ERROR_UNINITIALIZED;
    if (n == NULL) return NVML_ERROR_INVALID_ARGUMENT;
    pthread_mutex_lock(&control_lock);
    read_control();
    pthread_mutex_unlock(&control_lock);
    *n = device_count;
    return NVML_SUCCESS;
}

static nvmlReturn_t handle(unsigned int index, nvmlDevice_t *device) {
    __atomic_add_fetch(&identity_calls, 1, __ATOMIC_SEQ_CST);
    if (!initialized) return NVML_ERROR_UNINITIALIZED;
    if (device == NULL || index >= device_count) return NVML_ERROR_INVALID_ARGUMENT;
    if (devices[index].handle_error) return devices[index].handle_error;
    pthread_mutex_lock(&control_lock);
    read_control();
    pthread_mutex_unlock(&control_lock);
    *device = &devices[index];
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetCount(unsigned int *n) { return count(n); }
EXPORT nvmlReturn_t nvmlDeviceGetHandleByIndex(unsigned int i, nvmlDevice_t *d) { return handle(i, d); }
#ifndef OLD_NVML
EXPORT nvmlReturn_t nvmlSystemGetCudaDriverVersion_v2(int *v) { return nvmlSystemGetCudaDriverVersion(v); }
EXPORT nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *n) { return count(n); }
EXPORT nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int i, nvmlDevice_t *d) { return handle(i, d); }
#endif

EXPORT nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t d, char *name, unsigned int length) {
    nvmlReturn_t r = check(d, name);
    return r ? r : fill(name, length, d->name);
}

EXPORT nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t d, char *uuid, unsigned int length) {
    __atomic_add_fetch(&identity_calls, 1, __ATOMIC_SEQ_CST);
    nvmlReturn_t r = check(d, uuid);
    return r ? r : fill(uuid, length, d->uuid);
}

EXPORT nvmlReturn_t nvmlDeviceGetSerial(nvmlDevice_t d, char *serial, unsigned int length) {
    nvmlReturn_t r = check(d, serial);
    if (r == 0 && d->is_mig) return NVML_ERROR_NOT_SUPPORTED;
    return r ? r : fill(serial, length, d->serial);
}

EXPORT nvmlReturn_t nvmlDeviceGetBoardPartNumber(nvmlDevice_t d, char *part, unsigned int length) {
    nvmlReturn_t r = check(d, part);
    if (r == 0 && d->is_mig) return NVML_ERROR_NOT_SUPPORTED;
    return r ? r : fill(part, length, d->part);
}

/* PCI info survives a lost GPU: the driver keeps the address it enumerated. */
static nvmlReturn_t pci(nvmlDevice_t d, nvmlPciInfo_t *p, int domain_digits) {
    if (!initialized) return NVML_ERROR_UNINITIALIZED;
    if (d == NULL || !d->present || p == NULL) return NVML_ERROR_INVALID_ARGUMENT;
    if (d->is_mig) return NVML_ERROR_NOT_SUPPORTED;
    memset(p, 0, sizeof *p);
    snprintf(p->busIdLegacy, sizeof p->busIdLegacy, "%04X:%02X:%02X.0", d->domain, d->bus, d->dev);
    snprintf(p->busId, sizeof p->busId, domain_digits == 8 ? "%08X:%02X:%02X.0" : "%04X:%02X:%02X.0",
             d->domain, d->bus, d->dev);
    p->domain = d->domain; p->bus = d->bus; p->device = d->dev;
    p->pciDeviceId = d->pci_device_id; p->pciSubSystemId = d->pci_subsystem_id;
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetPciInfo(nvmlDevice_t d, nvmlPciInfoV1_t *p) {
    nvmlPciInfo_t full;
    nvmlReturn_t r = pci(d, p == NULL ? NULL : &full, 4);
    if (r) return r;
    memset(p, 0, sizeof *p);
    snprintf(p->busId, sizeof p->busId, "%s", full.busIdLegacy);
    p->domain = full.domain; p->bus = full.bus; p->device = full.device;
    p->pciDeviceId = full.pciDeviceId; p->pciSubSystemId = full.pciSubSystemId;
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t d, nvmlMemory_t *m) {
    spend(COST_MEMORY_INFO_US);
    nvmlReturn_t r = check(d, m);
    if (r) return r;
    if (d->unified_memory) return NVML_ERROR_NOT_SUPPORTED;
    m->total = d->mem_total;
    m->used = d->mem_reserved;
    m->free = d->mem_total - m->used;
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetCudaComputeCapability(nvmlDevice_t d, int *major, int *minor) {
    nvmlReturn_t r = check(d, major);
    if (r) return r;
    if (minor == NULL) return NVML_ERROR_INVALID_ARGUMENT;
    *major = d->cc_major; *minor = d->cc_minor;
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetBrand(nvmlDevice_t d, unsigned int *brand) {
    spend(COST_BRAND_US);
    nvmlReturn_t r = check(d, brand);
    if (r) return r;
    *brand = d->brand;
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetPowerManagementLimit(nvmlDevice_t d, unsigned int *limit) {
    spend(COST_SLOW_CALL_US);
    nvmlReturn_t r = check(d, limit);
    if (r) return r;
    if (d->is_mig) return NVML_ERROR_NOT_SUPPORTED;
    *limit = d->power_mw;
    return NVML_SUCCESS;
}

/* A value of a full GPU, Not Supported when 0 (the fake's way of saying the board does not have it). */
static nvmlReturn_t device_value(nvmlDevice_t d, unsigned int *out, unsigned int value) {
    spend(COST_SLOW_CALL_US);
    nvmlReturn_t r = check(d, out);
    if (r) return r;
    if (d->is_mig || value == 0) return NVML_ERROR_NOT_SUPPORTED;
    *out = value;
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetEnforcedPowerLimit(nvmlDevice_t d, unsigned int *limit) {
    return device_value(d, limit, d == NULL ? 0 : d->power_enforced_mw);
}

EXPORT nvmlReturn_t nvmlDeviceGetPowerManagementDefaultLimit(nvmlDevice_t d, unsigned int *limit) {
    return device_value(d, limit, d == NULL ? 0 : d->power_default_mw);
}

EXPORT nvmlReturn_t nvmlDeviceGetPowerManagementLimitConstraints(nvmlDevice_t d, unsigned int *min, unsigned int *max) {
    nvmlReturn_t r = device_value(d, min, d == NULL ? 0 : d->power_min_mw);
    return r ? r : device_value(d, max, d->power_max_mw);
}

EXPORT nvmlReturn_t nvmlDeviceGetVbiosVersion(nvmlDevice_t d, char *version, unsigned int length) {
    nvmlReturn_t r = check(d, version);
    if (r == 0 && d->is_mig) return NVML_ERROR_NOT_SUPPORTED;
    return r ? r : fill(version, length, d->vbios);
}

EXPORT nvmlReturn_t nvmlDeviceGetMaxPcieLinkGeneration(nvmlDevice_t d, unsigned int *gen) {
    return device_value(d, gen, d == NULL ? 0 : d->link_max_gen);
}

EXPORT nvmlReturn_t nvmlDeviceGetCurrPcieLinkGeneration(nvmlDevice_t d, unsigned int *gen) {
    return device_value(d, gen, d == NULL ? 0 : d->link_cur_gen);
}

EXPORT nvmlReturn_t nvmlDeviceGetMaxPcieLinkWidth(nvmlDevice_t d, unsigned int *width) {
    return device_value(d, width, d == NULL ? 0 : d->link_max_width);
}

EXPORT nvmlReturn_t nvmlDeviceGetCurrPcieLinkWidth(nvmlDevice_t d, unsigned int *width) {
    return device_value(d, width, d == NULL ? 0 : d->link_cur_width);
}

/* How often this process asked for a MIG or an ECC mode: a test checks how many a held session's pulse asks. */
static unsigned int mode_calls;

EXPORT unsigned int fakeNvmlModeCalls(void) {
    return __atomic_load_n(&mode_calls, __ATOMIC_SEQ_CST);
}

EXPORT nvmlReturn_t nvmlDeviceGetEccMode(nvmlDevice_t d, unsigned int *current, unsigned int *pending) {
    __atomic_add_fetch(&mode_calls, 1, __ATOMIC_SEQ_CST);
    spend(COST_SLOW_CALL_US);
    nvmlReturn_t r = check(d, current);
    if (r) return r;
    if (pending == NULL) return NVML_ERROR_INVALID_ARGUMENT;
    if (!d->ecc_supported || d->is_mig) return NVML_ERROR_NOT_SUPPORTED;
    *current = d->ecc_current; *pending = d->ecc_pending;
    return NVML_SUCCESS;
}

/* errorType 1 = NVML_MEMORY_ERROR_TYPE_UNCORRECTED, counterType 1 = NVML_AGGREGATE_ECC */
/* How often this process asked for an ECC count: a test checks which a held session's pulse asks. */
static unsigned int ecc_count_calls;

EXPORT unsigned int fakeNvmlEccCountCalls(void) {
    return __atomic_load_n(&ecc_count_calls, __ATOMIC_SEQ_CST);
}

EXPORT nvmlReturn_t nvmlDeviceGetTotalEccErrors(nvmlDevice_t d, unsigned int errorType, unsigned int counterType,
                                                unsigned long long *n) {
    __atomic_add_fetch(&ecc_count_calls, 1, __ATOMIC_SEQ_CST);
    spend(COST_ECC_COUNT_US);
    nvmlReturn_t r = check(d, n);
    if (r) return r;
    if (!d->ecc_supported || d->is_mig) return NVML_ERROR_NOT_SUPPORTED;
    if (errorType > 1 || counterType > 1) return NVML_ERROR_INVALID_ARGUMENT;
    unsigned long long volatile_count = d->ecc_volatile_uncorrected + injected_dbe[d - devices];
    *n = errorType != 1 ? 0 : counterType == 1 ? d->ecc_uncorrected + injected_lifetime[d - devices] + volatile_count
                                               : volatile_count;
    return NVML_SUCCESS;
}

/* Costs not measured on a real GPU yet: the ECC count's, for calls that read the same kind of driver state. */
#define COST_MEMORY_REPAIR_US COST_ECC_COUNT_US
#define COST_CLOCK_REASONS_US COST_BRAND_US
#define COST_REGISTER_EVENTS_US COST_SLOW_CALL_US

/* How often this process asked for retired pages or remapped rows: a test checks which a held session's pulse asks. */
static unsigned int memory_repair_calls;

EXPORT unsigned int fakeNvmlMemoryRepairCalls(void) {
    return __atomic_load_n(&memory_repair_calls, __ATOMIC_SEQ_CST);
}

EXPORT nvmlReturn_t nvmlDeviceGetRetiredPagesPendingStatus(nvmlDevice_t d, unsigned int *pending) {
    __atomic_add_fetch(&memory_repair_calls, 1, __ATOMIC_SEQ_CST);
    spend(COST_MEMORY_REPAIR_US);
    nvmlReturn_t r = check(d, pending);
    if (r) return r;
    if (d->is_mig || d->memory_repair != 1) return NVML_ERROR_NOT_SUPPORTED;
    *pending = d->pages_pending ? 1 : 0;
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetRemappedRows(nvmlDevice_t d, unsigned int *corr, unsigned int *unc,
                                              unsigned int *pending, unsigned int *failure) {
    __atomic_add_fetch(&memory_repair_calls, 1, __ATOMIC_SEQ_CST);
    spend(COST_MEMORY_REPAIR_US);
    nvmlReturn_t r = check(d, corr);
    if (r) return r;
    if (unc == NULL || pending == NULL || failure == NULL) return NVML_ERROR_INVALID_ARGUMENT;
    if (d->is_mig || d->memory_repair != 2) return NVML_ERROR_NOT_SUPPORTED;
    *corr = d->rows_corrected; *unc = d->rows_uncorrected; *pending = d->rows_pending; *failure = d->rows_failure;
    return NVML_SUCCESS;
}

static nvmlReturn_t clock_reasons(nvmlDevice_t d, unsigned long long *reasons) {
    spend(COST_CLOCK_REASONS_US);
    nvmlReturn_t r = check(d, reasons);
    if (r) return r;
    if (d->is_mig) return NVML_ERROR_NOT_SUPPORTED;
    *reasons = d->clock_reasons;
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetCurrentClocksThrottleReasons(nvmlDevice_t d, unsigned long long *reasons) {
    return clock_reasons(d, reasons);
}

/* nvml.h: the event calls. nvmlEventSet_t is a pointer to a set. */
typedef struct fake_set *nvmlEventSet_t;
typedef struct nvmlEventData_st {
    nvmlDevice_t device;
    unsigned long long eventType;
    unsigned long long eventData;
    unsigned int gpuInstanceId;
    unsigned int computeInstanceId;
} nvmlEventData_t;

/* Events this fake can raise on a GPU: Xid critical errors, ECC errors where the GPU has ECC, MIG configuration
   changes where it supports MIG. */
static unsigned long long supported_events(nvmlDevice_t d) {
    return 0x8 | (d->ecc_supported ? 0x1 | 0x2 : 0) | (d->mig_supported ? 0x100 : 0);
}

EXPORT nvmlReturn_t nvmlEventSetCreate(nvmlEventSet_t *set) {
    if (!initialized) return NVML_ERROR_UNINITIALIZED;
    if (set == NULL) return NVML_ERROR_INVALID_ARGUMENT;
    if (events_unsupported) return NVML_ERROR_NOT_SUPPORTED;
    pthread_mutex_lock(&control_lock);
    struct fake_set *s = NULL;
    for (int i = 0; i < MAX_SETS; i++) {
        if (!sets[i].used) { s = &sets[i]; break; }
    }
    if (s == NULL) { pthread_mutex_unlock(&control_lock); return NVML_ERROR_UNKNOWN; }
    memset(s, 0, sizeof *s);
    s->used = 1;
    read_control();
    s->cursor = event_count;
    s->inotify_fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    char path[4096];
    library_dir_file(path, sizeof path, "");
    if (s->inotify_fd >= 0) inotify_add_watch(s->inotify_fd, path, IN_CLOSE_WRITE | IN_MOVED_TO | IN_MODIFY);
    pthread_mutex_unlock(&control_lock);
    *set = s;
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetSupportedEventTypes(nvmlDevice_t d, unsigned long long *types) {
    nvmlReturn_t r = check(d, types);
    if (r) return r;
    if (events_unsupported || d->is_mig) return NVML_ERROR_NOT_SUPPORTED;
    *types = supported_events(d);
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceRegisterEvents(nvmlDevice_t d, unsigned long long types, nvmlEventSet_t set) {
    spend(COST_REGISTER_EVENTS_US);
    nvmlReturn_t r = check(d, set);
    if (r) return r;
    if (events_unsupported || d->is_mig) return NVML_ERROR_NOT_SUPPORTED;
    if (types & ~supported_events(d)) return NVML_ERROR_NOT_SUPPORTED;
    pthread_mutex_lock(&control_lock);
    set->mask[d - devices] |= types;
    pthread_mutex_unlock(&control_lock);
    return NVML_SUCCESS;
}

static long now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000L + t.tv_nsec / 1000000L;
}

/* Blocks in poll() on the folder's inotify descriptor until the control file changes or the timeout passes. */
/* How often this process waited on an event set: a test checks that a held session's pulse polls once. */
static unsigned int event_wait_calls;

EXPORT unsigned int fakeNvmlEventWaitCalls(void) {
    return __atomic_load_n(&event_wait_calls, __ATOMIC_SEQ_CST);
}

static nvmlReturn_t wait_event(nvmlEventSet_t set, nvmlEventData_t *data, unsigned int timeoutms, int v2) {
    __atomic_add_fetch(&event_wait_calls, 1, __ATOMIC_SEQ_CST);
    if (!initialized) return NVML_ERROR_UNINITIALIZED;
    if (set == NULL || data == NULL || !set->used) return NVML_ERROR_INVALID_ARGUMENT;
    long deadline = now_ms() + timeoutms;
    for (;;) {
        pthread_mutex_lock(&control_lock);
        read_control();
        while (set->cursor < event_count) {
            struct fake_event *e = &event_log[set->cursor++];
            if (e->index < device_count && (set->mask[e->index] & e->type)) {
                pthread_mutex_unlock(&control_lock);
                data->device = &devices[e->index];
                data->eventType = e->type;
                data->eventData = e->data;
                if (v2) { data->gpuInstanceId = 0xFFFFFFFFu; data->computeInstanceId = 0xFFFFFFFFu; }
                return NVML_SUCCESS;
            }
        }
        pthread_mutex_unlock(&control_lock);
        long left = deadline - now_ms();
        if (left <= 0) return 10; /* NVML_ERROR_TIMEOUT */
        struct pollfd p = {set->inotify_fd, POLLIN, 0};
        if (poll(&p, 1, (int) left) > 0) {
            char buf[4096];
            while (read(set->inotify_fd, buf, sizeof buf) > 0) {
            }
        }
    }
}

/* The unversioned wait fills the struct without the instance ids. */
EXPORT nvmlReturn_t nvmlEventSetWait(nvmlEventSet_t set, nvmlEventData_t *data, unsigned int timeoutms) {
    return wait_event(set, data, timeoutms, 0);
}

EXPORT nvmlReturn_t nvmlEventSetFree(nvmlEventSet_t set) {
    if (!initialized) return NVML_ERROR_UNINITIALIZED;
    if (set == NULL || !set->used) return NVML_ERROR_INVALID_ARGUMENT;
    pthread_mutex_lock(&control_lock);
    if (set->inotify_fd >= 0) close(set->inotify_fd);
    set->used = 0;
    pthread_mutex_unlock(&control_lock);
    return NVML_SUCCESS;
}

#ifndef OLD_NVML
EXPORT nvmlReturn_t nvmlDeviceGetPciInfo_v2(nvmlDevice_t d, nvmlPciInfo_t *p) { return pci(d, p, 4); }
EXPORT nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t d, nvmlPciInfo_t *p) { return pci(d, p, 8); }

EXPORT nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t d, nvmlMemory_v2_t *m) {
    spend(COST_MEMORY_INFO_US);
    nvmlReturn_t r = check(d, m);
    if (r) return r;
    if (m->version != nvmlMemory_v2) return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
    if (d->unified_memory) return NVML_ERROR_NOT_SUPPORTED;
    m->total = d->mem_total;
    m->reserved = d->mem_reserved;
    m->used = d->mem_reserved;
    m->free = d->mem_total - m->used;
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetArchitecture(nvmlDevice_t d, unsigned int *arch) {
    nvmlReturn_t r = check(d, arch);
    if (r) return r;
    *arch = d->arch;
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetMigMode(nvmlDevice_t d, unsigned int *current, unsigned int *pending) {
    __atomic_add_fetch(&mode_calls, 1, __ATOMIC_SEQ_CST);
    spend(COST_SLOW_CALL_US);
    nvmlReturn_t r = check(d, current);
    if (r) return r;
    if (pending == NULL) return NVML_ERROR_INVALID_ARGUMENT;
    if (!d->mig_supported || d->is_mig) return NVML_ERROR_NOT_SUPPORTED;
    *current = d->mig_current; *pending = d->mig_pending;
    return NVML_SUCCESS;
}

/* How often this process asked for a GPU's max MIG device count: a test checks what a held session asks again. */
static unsigned int max_mig_device_count_calls;

EXPORT unsigned int fakeNvmlMaxMigDeviceCountCalls(void) {
    return __atomic_load_n(&max_mig_device_count_calls, __ATOMIC_SEQ_CST);
}

EXPORT nvmlReturn_t nvmlDeviceGetMaxMigDeviceCount(nvmlDevice_t d, unsigned int *n) {
    __atomic_add_fetch(&max_mig_device_count_calls, 1, __ATOMIC_SEQ_CST);
    spend(COST_SLOW_CALL_US);
    nvmlReturn_t r = check(d, n);
    if (r) return r;
    if (!d->mig_supported || d->is_mig) return NVML_ERROR_NOT_SUPPORTED;
    *n = MAX_MIG;
    return NVML_SUCCESS;
}

/* How often this process asked for a MIG device's handle: a test checks when a held session's pulse walks the slots. */
static unsigned int mig_handle_calls;

EXPORT unsigned int fakeNvmlMigHandleCalls(void) {
    return __atomic_load_n(&mig_handle_calls, __ATOMIC_SEQ_CST);
}

EXPORT nvmlReturn_t nvmlDeviceGetMigDeviceHandleByIndex(nvmlDevice_t d, unsigned int index, nvmlDevice_t *mig) {
    __atomic_add_fetch(&mig_handle_calls, 1, __ATOMIC_SEQ_CST);
    nvmlReturn_t r = check(d, mig);
    if (r) return r;
    if (!d->mig_supported || d->is_mig) return NVML_ERROR_NOT_SUPPORTED;
    if (!d->mig_current) return NVML_ERROR_INVALID_ARGUMENT;
    if (index >= MAX_MIG) return NVML_ERROR_INVALID_ARGUMENT;
    if ((int) index >= d->mig_count) return NVML_ERROR_NOT_FOUND;
    *mig = &d->migs[index];
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetGpuInstanceId(nvmlDevice_t d, unsigned int *id) {
    nvmlReturn_t r = check(d, id);
    if (r) return r;
    if (!d->is_mig) return NVML_ERROR_NOT_SUPPORTED;
    *id = d->gi;
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetComputeInstanceId(nvmlDevice_t d, unsigned int *id) {
    nvmlReturn_t r = check(d, id);
    if (r) return r;
    if (!d->is_mig) return NVML_ERROR_NOT_SUPPORTED;
    *id = d->ci;
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetAttributes_v2(nvmlDevice_t d, nvmlDeviceAttributes_t *a) {
    nvmlReturn_t r = check(d, a);
    if (r) return r;
    if (!d->is_mig) return NVML_ERROR_NOT_SUPPORTED;
    memset(a, 0, sizeof *a);
    a->multiprocessorCount = d->sm;
    a->memorySizeMB = d->mem_total / MIB;
    return NVML_SUCCESS;
}

/* NVLink: as nvml.h declares them. A GPU without NVLink answers Not Supported; a link past its last, Invalid Argument. */
/* How often this process asked any NVLink call: a test checks that a steady pass (a pulse) asks none. */
static unsigned int nvlink_calls;

EXPORT unsigned int fakeNvmlNvLinkCalls(void) {
    return __atomic_load_n(&nvlink_calls, __ATOMIC_SEQ_CST);
}

static nvmlReturn_t nvlink(nvmlDevice_t d, unsigned int link, const void *out, int need_active) {
    __atomic_add_fetch(&nvlink_calls, 1, __ATOMIC_SEQ_CST);
    nvmlReturn_t r = check(d, out);
    if (r) return r;
    if (d->is_mig || d->nvlinks == 0) return NVML_ERROR_NOT_SUPPORTED;
    if (link >= d->nvlinks) return NVML_ERROR_INVALID_ARGUMENT;
    if (need_active && !d->link_active[link]) return NVML_ERROR_NOT_SUPPORTED;
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetNvLinkState(nvmlDevice_t d, unsigned int link, unsigned int *isActive) {
    nvmlReturn_t r = nvlink(d, link, isActive, 0);
    if (r) return r;
    *isActive = d->link_active[link];
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetNvLinkVersion(nvmlDevice_t d, unsigned int link, unsigned int *version) {
    nvmlReturn_t r = nvlink(d, link, version, 1);
    if (r) return r;
    *version = d->nvlink_version;
    return NVML_SUCCESS;
}

/* The far end's PCI address: the peer GPU's, or for a switch an address on a bus of its own. */
static nvmlReturn_t remote_pci(nvmlDevice_t d, unsigned int link, nvmlPciInfo_t *p) {
    nvmlReturn_t r = nvlink(d, link, p, 1);
    if (r) return r;
    if (d->link_remote[link] >= 0) {
        return pci(&devices[d->link_remote[link]], p, 8);
    }
    memset(p, 0, sizeof *p);
    p->domain = d->domain; p->bus = 0xc0 + link / 4; p->device = 0;
    snprintf(p->busIdLegacy, sizeof p->busIdLegacy, "%04X:%02X:00.0", p->domain, p->bus);
    snprintf(p->busId, sizeof p->busId, "%08X:%02X:00.0", p->domain, p->bus);
    p->pciDeviceId = 0x22a310de;
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetNvLinkRemotePciInfo_v2(nvmlDevice_t d, unsigned int link, nvmlPciInfo_t *p) {
    return remote_pci(d, link, p);
}

/* 0 NVML_NVLINK_DEVICE_TYPE_GPU, 2 NVML_NVLINK_DEVICE_TYPE_SWITCH */
EXPORT nvmlReturn_t nvmlDeviceGetNvLinkRemoteDeviceType(nvmlDevice_t d, unsigned int link, unsigned int *type) {
    nvmlReturn_t r = nvlink(d, link, type, 1);
    if (r) return r;
    *type = d->link_remote[link] >= 0 ? 0 : 2;
    return NVML_SUCCESS;
}

/* NVML_P2P_CAPS_INDEX_NVLINK is 2; NVML_P2P_STATUS_OK 0, NVML_P2P_STATUS_NOT_SUPPORTED 5. */
EXPORT nvmlReturn_t nvmlDeviceGetP2PStatus(nvmlDevice_t a, nvmlDevice_t b, unsigned int caps, unsigned int *status) {
    nvmlReturn_t r = check(a, status);
    if (r) return r;
    r = check(b, status);
    if (r) return r;
    if (caps != 2) return NVML_ERROR_INVALID_ARGUMENT;
    int a_switch = 0, b_switch = 0, direct = 0;
    for (unsigned int l = 0; l < a->nvlinks; l++) {
        if (!a->link_active[l]) continue;
        a_switch |= a->link_remote[l] == LINK_TO_SWITCH;
        direct |= a->link_remote[l] >= 0 && &devices[a->link_remote[l]] == b;
    }
    for (unsigned int l = 0; l < b->nvlinks; l++) {
        b_switch |= b->link_active[l] && b->link_remote[l] == LINK_TO_SWITCH;
    }
    *status = direct || (a_switch && b_switch) ? 0 : 5;
    return NVML_SUCCESS;
}

typedef struct {
    unsigned int version;
    unsigned char clusterUuid[16];
    nvmlReturn_t status;
    unsigned int cliqueId;
    unsigned char state;
    unsigned int healthMask;
} nvmlGpuFabricInfo_v2_t;
#define nvmlGpuFabricInfo_v2 (unsigned int)(sizeof(nvmlGpuFabricInfo_v2_t) | (2 << 24U))

EXPORT nvmlReturn_t nvmlDeviceGetGpuFabricInfoV(nvmlDevice_t d, nvmlGpuFabricInfo_v2_t *info) {
    nvmlReturn_t r = check(d, info);
    if (r) return r;
    if (info->version != nvmlGpuFabricInfo_v2) return NVML_ERROR_ARGUMENT_VERSION_MISMATCH;
    if (d->is_mig || !d->fabric) return NVML_ERROR_NOT_SUPPORTED;
    memcpy(info->clusterUuid, d->cluster_uuid, 16);
    info->status = NVML_SUCCESS;
    info->cliqueId = d->clique;
    info->state = d->fabric_state;
    info->healthMask = 0;
    return NVML_SUCCESS;
}

EXPORT nvmlReturn_t nvmlDeviceGetCurrentClocksEventReasons(nvmlDevice_t d, unsigned long long *reasons) {
    return clock_reasons(d, reasons);
}

EXPORT nvmlReturn_t nvmlEventSetWait_v2(nvmlEventSet_t set, nvmlEventData_t *data, unsigned int timeoutms) {
    return wait_event(set, data, timeoutms, 1);
}
#endif
