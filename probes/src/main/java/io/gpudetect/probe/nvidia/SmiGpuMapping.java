package io.gpudetect.probe.nvidia;

import io.gpudetect.model.Diagnostic;
import io.gpudetect.model.Gpu;
import io.gpudetect.model.Health;
import io.gpudetect.model.HealthReason;
import io.gpudetect.model.Partition;
import io.gpudetect.model.Partitioning;
import io.gpudetect.model.PcieLink;
import io.gpudetect.model.PowerLimits;
import io.gpudetect.model.Vendor;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.function.Function;
import java.util.regex.Pattern;

/**
 * One GPU of {@code nvidia-smi -q}, text or XML, onto the {@link Gpu} builder: both forms print the same fields
 * (named in {@link SmiField}), so they are mapped here once. The parsers find the GPU entries and their bus ids.
 */
final class SmiGpuMapping {

    private SmiGpuMapping() {
    }

    /** The two forms, and what differs between them beyond the names: the probe, how a path is quoted. */
    enum Form {
        TEXT(NvidiaSmiQueryTextParser.PROBE) {
            @Override
            String clean(String value) {
                return value == null ? null : DEPRECATION.matcher(value).replaceFirst("");
            }

            @Override
            String describe(String... path) {
                return String.join(" / ", path);
            }
        },
        XML(NvidiaSmiXmlParser.PROBE) {
            @Override
            String clean(String value) {
                return value;
            }

            @Override
            String describe(String... path) {
                return "<" + String.join("/", path) + ">";
            }
        };

        /** Windows R610+: {@code 610.62 [Deprecated; will be removed in CUDA 14.0. Use KMD Version instead]}. */
        private static final Pattern DEPRECATION = Pattern.compile("(?i)\\s*\\[deprecated[^\\]]*]\\s*$");

        final String probe;

        Form(String probe) {
            this.probe = probe;
        }

        /** The value without notes the form adds to it. */
        abstract String clean(String value);

        /** How a warning names a path. */
        abstract String describe(String... path);
    }

    /** The GPU whose entry {@code f} reads, its address aside (each form writes that its own way). */
    static <E extends SmiEntry<E>> Gpu.Builder read(Fields<E> f, String driver, String runtime) {
        Gpu.Builder b = Gpu.builder(f.form.probe).vendor(Vendor.NVIDIA).driverVersion(driver).runtimeVersion(runtime);
        b.name(f.text(SmiField.PRODUCT_NAME));
        b.architecture(f.text(SmiField.ARCHITECTURE));
        b.serial(f.identifier(SmiField.SERIAL));
        b.uuid(f.read(NvidiaReaders.UUID, SmiField.UUID));
        b.boardPartNumber(f.text(SmiField.BOARD_PART_NUMBER));
        String[] device = f.read(NvidiaReaders.PACKED_ID, SmiField.PCI_DEVICE_ID);
        if (device != null) {
            b.pciDeviceId(device[0]).pciVendorId(device[1]);
        }
        String[] subsystem = f.read(NvidiaReaders.PACKED_ID, SmiField.PCI_SUBSYSTEM_ID);
        if (subsystem != null) {
            b.pciSubsystemDeviceId(subsystem[0]).pciSubsystemVendorId(subsystem[1]);
        }
        b.memoryMiB(f.read(NvidiaReaders.MIB, SmiField.MEMORY_TOTAL));
        b.powerLimitWatts(f.read(NvidiaReaders.WATTS, SmiField.POWER_LIMIT));
        b.powerLimits(powerLimits(f));
        b.vbiosVersion(f.text(SmiField.VBIOS_VERSION));
        b.pcieLink(new PcieLink(f.read(NvidiaReaders.PCIE_LINK, SmiField.LINK_GENERATION),
                f.read(NvidiaReaders.PCIE_LINK, SmiField.MAX_LINK_GENERATION),
                f.read(NvidiaReaders.PCIE_LINK, SmiField.LINK_WIDTH),
                f.read(NvidiaReaders.PCIE_LINK, SmiField.MAX_LINK_WIDTH)));
        b.partitioning(mig(f));
        b.health(health(f));
        return b;
    }

    /** The power cap's range and default, in the newest readings section present (named from the GPU in warnings). */
    private static <E extends SmiEntry<E>> PowerLimits powerLimits(Fields<E> f) {
        List<String[]> sections = SmiField.POWER_READINGS.paths(f.form);
        String[] readings = sections.stream().filter(p -> f.parent.child(p).isPresent()).findFirst()
                .orElse(sections.get(sections.size() - 1));
        return new PowerLimits(f.read(NvidiaReaders.WATTS, readings, SmiField.MIN_POWER_LIMIT),
                f.read(NvidiaReaders.WATTS, readings, SmiField.MAX_POWER_LIMIT),
                f.read(NvidiaReaders.WATTS, readings, SmiField.DEFAULT_POWER_LIMIT));
    }

    private static <E extends SmiEntry<E>> Partitioning mig(Fields<E> f) {
        Boolean current = NvidiaValues.enabled(f.text(SmiField.MIG_CURRENT));
        Boolean pending = NvidiaValues.enabled(f.text(SmiField.MIG_PENDING));
        if (current == null && pending == null) {
            return null;
        }
        List<Partition> instances = new ArrayList<>();
        f.entry(SmiField.MIG_DEVICES).ifPresent(devices -> {
            for (E d : devices.all(SmiField.MIG_DEVICE.entryName(f.form))) {
                Fields<E> mf = f.under(d);
                instances.add(new Partition(null,
                        mf.read(NvidiaReaders.SMALL_COUNT, SmiField.GPU_INSTANCE_ID),
                        mf.read(NvidiaReaders.SMALL_COUNT, SmiField.COMPUTE_INSTANCE_ID),
                        mf.read(NvidiaReaders.MIB, SmiField.MEMORY_TOTAL),
                        mf.read(NvidiaReaders.SMALL_COUNT, SmiField.MULTIPROCESSORS),
                        mf.read(NvidiaReaders.UUID, SmiField.MIG_UUID)));
            }
        });
        return new Partitioning("mig", current, pending, instances);
    }

    /**
     * The health {@code -q} shows. A value such as {@code Unknown Error} means the GPU is lost, except in the PCIe
     * link's {@code Host Max} ({@code max_host_link_gen}), which asks the host's bridge, not the GPU: driver 550 on a
     * host of eight V100s prints {@code Unknown Error} there for every healthy GPU (hosts/8x-tesla-v100-sxm2-16gb_...).
     */
    private static <E extends SmiEntry<E>> Health health(Fields<E> f) {
        List<String> problems = new ArrayList<>();
        f.parent.walk(e -> {
            if (problems.isEmpty() && e.value() != null && NvidiaValues.signalsLostGpu(e.value())
                    && !e.named("Host Max") && !e.named("max_host_link_gen")) {
                problems.add(e.quoted());
            }
        });
        boolean lost = !problems.isEmpty();
        List<HealthReason> reasons = new ArrayList<>();
        if (lost) {
            reasons.add(HealthReason.GPU_LOST);
        }
        long uncorrected = 0;
        boolean anyEcc = false;
        Optional<E> aggregate = f.entry(SmiField.ECC_AGGREGATE);
        if (aggregate.isPresent()) {
            Fields<E> af = f.under(aggregate.get());
            // Each driver prints some of the counters: the sum of those present.
            for (String[] path : SmiField.UNCORRECTED_ECC.paths(f.form)) {
                Long n = af.read(NvidiaReaders.COUNT, path);
                if (n != null) {
                    uncorrected += n;
                    anyEcc = true;
                }
            }
        }
        if (uncorrected > 0) {
            // The counters read are the aggregate ones, kept over the GPU's lifetime: a sign, not a failure now.
            reasons.add(HealthReason.PAST_UNCORRECTABLE_ECC);
            problems.add(uncorrected + " uncorrected ECC errors over the GPU's lifetime (aggregate)");
        }
        if ("Yes".equalsIgnoreCase(f.text(SmiField.RETIREMENT_PENDING))) {
            reasons.add(HealthReason.PAGES_PENDING_RETIREMENT);
            problems.add("retired pages pending: the GPU needs a reset");
        }
        if ("Yes".equalsIgnoreCase(f.text(SmiField.REMAPPING_PENDING))) {
            reasons.add(HealthReason.ROWS_PENDING_REMAP);
            problems.add("row remapping pending: the GPU needs a reset");
        }
        return Health.of(reasons, anyEcc ? uncorrected : null, problems);
    }

    /**
     * Reads values under one entry, turning a value that does not parse into a warning with its line. A field is
     * read under each name it has had, newest first, until one gives a value.
     */
    record Fields<E extends SmiEntry<E>>(E parent, Form form, String file, List<Diagnostic> notes) {

        Fields<E> under(E entry) {
            return new Fields<>(entry, form, file, notes);
        }

        // Each field's paths tried in loops rather than through a reading function: the lambdas were invokedynamic
        // sites bootstrapped at every replay of nvidia-smi's output (docs/performance.md, row "the nvidia-smi
        // parsers' readers as classes").
        Optional<E> entry(SmiField field) {
            for (String[] path : field.paths(form)) {
                Optional<E> e = parent.child(path);
                if (e.isPresent()) {
                    return e;
                }
            }
            return Optional.empty();
        }

        String text(SmiField field) {
            for (String[] path : field.paths(form)) {
                String value = text(path);
                if (value != null) {
                    return value;
                }
            }
            return null;
        }

        String identifier(SmiField field) {
            for (String[] path : field.paths(form)) {
                Optional<E> e = parent.child(path);
                String value = e.isPresent() ? NvidiaValues.identifier(e.get().value()) : null;
                if (value != null) {
                    return value;
                }
            }
            return null;
        }

        <T> T read(Function<String, T> reader, SmiField field) {
            for (String[] path : field.paths(form)) {
                T value = read(reader, path);
                if (value != null) {
                    return value;
                }
            }
            return null;
        }

        /** A field under a section that itself moved: its paths joined to {@code section}. */
        <T> T read(Function<String, T> reader, String[] section, SmiField field) {
            for (String[] path : field.paths(form)) {
                String[] joined = new String[section.length + path.length];
                System.arraycopy(section, 0, joined, 0, section.length);
                System.arraycopy(path, 0, joined, section.length, path.length);
                T value = read(reader, joined);
                if (value != null) {
                    return value;
                }
            }
            return null;
        }

        String text(String... path) {
            Optional<E> e = parent.child(path);
            return e.isPresent() ? NvidiaValues.value(form.clean(e.get().value())) : null;
        }

        <T> T read(Function<String, T> reader, String... path) {
            Optional<E> e = parent.child(path);
            if (e.isEmpty() || e.get().value() == null) {
                return null;
            }
            try {
                return reader.apply(form.clean(e.get().value()));
            } catch (IllegalArgumentException | ArithmeticException ex) {
                notes.add(Diagnostic.warning(form.probe, file, e.get().line(), form.describe(path) + ": " + ex.getMessage()));
                return null;
            }
        }
    }
}
