package io.gpudetect.probe.nvidia;

import io.gpudetect.model.Diagnostic;
import io.gpudetect.model.Gpu;
import io.gpudetect.model.PcieLink;
import io.gpudetect.model.PowerLimits;
import io.gpudetect.model.Health;
import io.gpudetect.model.HealthReason;
import io.gpudetect.model.Partitioning;
import io.gpudetect.model.PciAddress;
import io.gpudetect.model.Vendor;
import io.gpudetect.probe.ParsedOutput;
import io.gpudetect.probe.PastedText;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.Function;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code nvidia-smi --query-gpu=... --format=csv[,noheader][,nounits]}: any column set, in any order.
 * The header names the columns ({@code memory.total [MiB]}, the unit in brackets unless {@code nounits});
 * the known query fields are mapped, the rest ignored. Without a header the columns are unknown: only the
 * values that say what they are (a PCI bus id, a {@code GPU-} UUID) are read, and a warning says so.
 */
public final class NvidiaSmiCsvParser {

    public static final String PROBE = "nvidia-smi-csv";
    /** A header cell: a query field name, optionally followed by its unit, {@code memory.total [MiB]}. */
    private static final Pattern HEADER_CELL = Pattern.compile("^([A-Za-z][A-Za-z0-9_]*(?:\\.[A-Za-z0-9_]+)*)(?:\\s*\\[([^\\]]*)])?$");
    private static final Pattern UUID = Pattern.compile("(?i)^GPU-[0-9a-f]{8}(-[0-9a-f]{4}){3}-[0-9a-f]{12}$");
    private static final Pattern BUS_ID = Pattern.compile("(?i)^[0-9a-f]{4,8}:[0-9a-f]{2}:[0-9a-f]{2}\\.[0-7]$");
    private static final Pattern ID4 = Pattern.compile("(?i)^(?:0x)?([0-9a-f]{4})$");
    private static final List<String> KNOWN = List.of("name", "gpu_name", "pci.bus_id", "gpu_bus_id", "uuid", "gpu_uuid",
            "serial", "gpu_serial", "memory.total", "driver_version", "kmd_version", "pci.device_id", "pci.sub_device_id",
            "compute_cap", "power.limit", "enforced.power.limit", "mig.mode.current", "mig.mode.pending",
            "ecc.errors.uncorrected.aggregate.total", "retired_pages.pending", "remapped_rows.pending");

    /* The parser's own readers, as classes for the reason NvidiaReaders gives. */
    private static final Function<String, PciAddress> ADDRESS = new Function<>() {
        @Override
        public PciAddress apply(String v) {
            return address(v);
        }
    };
    private static final Function<String, String[]> DEVICE_ID = new Function<>() {
        @Override
        public String[] apply(String v) {
            return deviceId(v);
        }
    };
    private static final Function<String, String> COMPUTE_CAPABILITY = new Function<>() {
        @Override
        public String apply(String v) {
            return computeCapability(v);
        }
    };

    private NvidiaSmiCsvParser() {
    }

    public static ParsedOutput parse(String text, String file) {
        return parse(text, file, List.of());
    }

    /**
     * @param commands the command lines pasted with the output: without a header, the {@code --query-gpu=} of the
     *                 one before the rows names the columns, and {@code -l}/{@code -lms} says the rows are a time series
     */
    public static ParsedOutput parse(String text, String file, List<PastedText.Command> commands) {
        List<Diagnostic> notes = new ArrayList<>();
        List<String> lines = text.lines().toList();
        List<Gpu> gpus = new ArrayList<>();
        int first = 0;
        while (first < lines.size() && lines.get(first).isBlank()) {
            first++;
        }
        if (first == lines.size()) {
            notes.add(Diagnostic.error(PROBE, file, null, "no lines; expected the CSV of 'nvidia-smi --query-gpu=... --format=csv'"));
            return new ParsedOutput(gpus, notes);
        }
        List<String> header = header(lines.get(first));
        int headerLine = first + 1;
        String headerText = header == null ? null : lines.get(first).strip();
        QueryCommand query = QueryCommand.before(commands, first + 1);
        boolean repeatedHeader = false;
        // The rows first: without a header their values decide the columns, and a time series is told by all of them.
        List<CsvRow> rows = new ArrayList<>();
        for (int i = header == null ? first : first + 1; i < lines.size(); i++) {
            String line = lines.get(i);
            if (line.isBlank() || line.stripLeading().startsWith("#")) {
                // nvidia-smi never starts a row with '#'; a pasted "# Output" or shell comment is not a GPU.
                continue;
            }
            if (headerText != null && line.strip().equals(headerText)) {
                // 'nvidia-smi --query-gpu=... -l 1' from several runs appended to one file repeats its header.
                repeatedHeader = true;
                continue;
            }
            Optional<Gpu> lost = LostGpuLine.read(line, PROBE);
            if (lost.isPresent()) {
                rows.add(new CsvRow(i + 1, List.of(), lost.get()));
                continue;
            }
            rows.add(new CsvRow(i + 1, split(line), null));
        }
        boolean inferred = false;
        if (header == null && query != null) {
            header = query.fields();
            notes.add(Diagnostic.info(PROBE, file, query.line(), "no header line: the columns are those the command line "
                    + "pasted on line " + query.line() + " asks for (--query-gpu=" + String.join(",", header) + ")"));
        } else if (header == null) {
            ColumnGuess guess = ColumnGuess.of(rows.stream().filter(r -> r.gpu() == null).map(CsvRow::values).toList());
            if (guess.placedAny()) {
                header = guess.header();
                inferred = true;
                notes.add(Diagnostic.warning(PROBE, file, first + 1, "no header line (recorded with 'noheader'?) and no "
                        + "command line: placed only the columns whose values say what they are (" + guess.describe()
                        + "); the others are not read"));
            } else {
                notes.add(Diagnostic.warning(PROBE, file, first + 1, "no header line (recorded with 'noheader'?): the columns "
                        + "are unknown, so only the PCI bus id and UUID were read; expected a first line naming the query "
                        + "fields, like 'name, pci.bus_id, memory.total [MiB]'"));
            }
        } else if (header.stream().noneMatch(h -> KNOWN.contains(fieldOf(h)))) {
            notes.add(Diagnostic.warning(PROBE, file, headerLine, "the header names none of the fields read here ("
                    + String.join(", ", KNOWN.subList(0, 8)) + ", ...)"));
        }
        int unknownRows = 0;
        List<CsvRow> read = new ArrayList<>();
        for (CsvRow row : rows) {
            List<String> values = row.values();
            if (row.gpu() != null) {
                read.add(row);
            } else if (header == null || (inferred && values.size() != header.size())) {
                Gpu gpu = selfDescribing(values);
                if (gpu.pciAddress() == null && gpu.uuid() == null && gpu.health() == null) {
                    // Without a header only these values say that a row is a GPU; a line of prose is not one.
                    unknownRows++;
                    notes.add(Diagnostic.warning(PROBE, file, row.line(), "neither a PCI bus id (00000000:01:00.0) nor a "
                            + "GPU UUID (GPU-...) in this row; the row is left out"));
                } else {
                    read.add(row.with(gpu));
                }
            } else if (values.size() != header.size()) {
                notes.add(Diagnostic.warning(PROBE, file, row.line(), "expected " + header.size() + " values as the "
                        + (query != null && headerText == null ? "command line on line " + query.line() : "header on line " + headerLine)
                        + " names, found " + values.size() + "; the row is left out"));
            } else {
                Gpu gpu = readRow(header, values, row.line(), file, notes);
                if (inferred && gpu.name() == null && gpu.pciAddress() == null && gpu.uuid() == null && gpu.memoryMiB() == null
                        && gpu.driverVersion() == null && gpu.health() == null) {
                    unknownRows++;
                    notes.add(Diagnostic.warning(PROBE, file, row.line(), "none of the placed columns has a value in this "
                            + "row; the row is left out"));
                } else {
                    read.add(row.with(gpu));
                }
            }
        }
        boolean loops = (query != null && query.loops()) || repeatedHeader
                || (header != null && header.stream().anyMatch(h -> fieldOf(h).equals("timestamp")));
        gpus.addAll(TimeSeries.oneGpuEach(read, header, loops, file, notes));
        if (gpus.isEmpty() && unknownRows > 0) {
            notes.add(Diagnostic.error(PROBE, file, null, "no row names a GPU; expected the CSV of "
                    + "'nvidia-smi --query-gpu=name,pci.bus_id,uuid,... --format=csv'"));
        } else if (gpus.isEmpty() && notes.stream().noneMatch(n -> n.severity() != Diagnostic.Severity.INFO)) {
            notes.add(Diagnostic.warning(PROBE, file, headerLine, "a header but no GPU rows"));
        }
        return new ParsedOutput(gpus, notes);
    }

    /**
     * The header's cells, or null when the first line is not a header: every cell must look like a field
     * name, and one must be a known field or dotted ({@code Enabled, Disabled} is a row, not a header).
     */
    private static List<String> header(String line) {
        List<String> cells = split(line);
        boolean fieldLike = false;
        for (String c : cells) {
            if (!HEADER_CELL.matcher(c).matches()) {
                return null;
            }
            fieldLike |= KNOWN.contains(fieldOf(c)) || c.contains(".") || c.contains("_");
        }
        return fieldLike ? cells : null;
    }

    static String fieldOf(String headerCell) {
        Matcher m = HEADER_CELL.matcher(headerCell);
        return m.matches() ? m.group(1).toLowerCase(Locale.ROOT) : headerCell.toLowerCase(Locale.ROOT);
    }

    static List<String> split(String line) {
        List<String> out = new ArrayList<>();
        for (String s : line.split(",", -1)) {
            out.add(s.strip());
        }
        return out;
    }

    private static Gpu selfDescribing(List<String> values) {
        Gpu.Builder b = Gpu.builder(PROBE).vendor(Vendor.NVIDIA);
        for (String v : values) {
            if (BUS_ID.matcher(v).matches()) {
                b.pciAddress(PciAddress.parse(v).orElse(null));
            } else if (UUID.matcher(v).matches()) {
                b.uuid(NvidiaValues.identifier(v));
            }
        }
        b.health(lostHealth(values, null));
        return b.build();
    }

    private static Gpu readRow(List<String> header, List<String> values, int line, String file, List<Diagnostic> notes) {
        Row r = new Row(header, values, line, file, notes);
        Gpu.Builder b = Gpu.builder(PROBE).vendor(Vendor.NVIDIA);
        String name = firstOf(r.text("name"), r.text("gpu_name"));
        if (name != null && !NvidiaValues.signalsLostGpu(name)) {
            b.name(name);
        }
        b.pciAddress(firstOf(r.read("pci.bus_id", ADDRESS), r.read("gpu_bus_id", ADDRESS)));
        b.uuid(firstOf(r.read("uuid", NvidiaReaders.UUID), r.read("gpu_uuid", NvidiaReaders.UUID)));
        b.serial(NvidiaValues.identifier(firstOf(r.raw("serial"), r.raw("gpu_serial"))));
        Long total = r.read("memory.total", NvidiaReaders.MIB);
        if (total == null && !r.has("memory.total")) {
            total = totalFromParts(r);
        }
        b.memoryMiB(total);
        b.driverVersion(firstOf(r.read("kmd_version", NvidiaReaders.DRIVER_VERSION), r.read("driver_version", NvidiaReaders.DRIVER_VERSION)));
        String[] device = r.read("pci.device_id", DEVICE_ID);
        if (device != null) {
            b.pciDeviceId(device[0]).pciVendorId(device[1]);
        }
        String[] subsystem = r.read("pci.sub_device_id", NvidiaReaders.PACKED_ID);
        if (subsystem != null) {
            b.pciSubsystemDeviceId(subsystem[0]).pciSubsystemVendorId(subsystem[1]);
        }
        b.computeCapability(r.read("compute_cap", COMPUTE_CAPABILITY));
        b.powerLimitWatts(firstOf(r.read("power.limit", NvidiaReaders.WATTS), r.read("enforced.power.limit", NvidiaReaders.WATTS)));
        b.powerLimits(new PowerLimits(r.read("power.min_limit", NvidiaReaders.WATTS),
                r.read("power.max_limit", NvidiaReaders.WATTS), r.read("power.default_limit", NvidiaReaders.WATTS)));
        b.vbiosVersion(r.text("vbios_version"));
        b.pcieLink(new PcieLink(r.read("pcie.link.gen.current", NvidiaReaders.PCIE_LINK),
                firstOf(r.read("pcie.link.gen.max", NvidiaReaders.PCIE_LINK), r.read("pcie.link.gen.gpumax", NvidiaReaders.PCIE_LINK)),
                r.read("pcie.link.width.current", NvidiaReaders.PCIE_LINK), r.read("pcie.link.width.max", NvidiaReaders.PCIE_LINK)));
        Boolean migCurrent = NvidiaValues.enabled(r.raw("mig.mode.current"));
        Boolean migPending = NvidiaValues.enabled(r.raw("mig.mode.pending"));
        if (migCurrent != null || migPending != null) {
            b.partitioning(new Partitioning("mig", migCurrent, migPending, List.of()));
        }
        Long ecc = r.read("ecc.errors.uncorrected.aggregate.total", NvidiaReaders.COUNT);
        List<String> problems = new ArrayList<>();
        List<HealthReason> reasons = new ArrayList<>();
        if (ecc != null && ecc > 0) {
            // The aggregate column counts over the GPU's lifetime: a sign to watch, not a failure now.
            reasons.add(HealthReason.PAST_UNCORRECTABLE_ECC);
            problems.add(ecc + " uncorrected ECC errors over the GPU's lifetime (aggregate)");
        }
        if ("Yes".equalsIgnoreCase(r.raw("retired_pages.pending"))) {
            reasons.add(HealthReason.PAGES_PENDING_RETIREMENT);
            problems.add("retired pages pending: the GPU needs a reset");
        }
        if ("Yes".equalsIgnoreCase(r.raw("remapped_rows.pending"))) {
            reasons.add(HealthReason.ROWS_PENDING_REMAP);
            problems.add("row remapping pending: the GPU needs a reset");
        }
        Health lost = lostHealth(values, header);
        boolean healthKnown = r.text("ecc.errors.uncorrected.aggregate.total") != null
                || r.text("retired_pages.pending") != null || r.text("remapped_rows.pending") != null;
        if (lost != null) {
            b.health(lost);
        } else if (healthKnown) {
            b.health(Health.of(reasons, ecc, problems));
        }
        return b.build();
    }

    /**
     * Queries that ask for {@code memory.used,memory.free} but not the total (netdata's, for one): nvidia-smi's
     * total is used + free + reserved (reserved split out since R510), so the sum is the card's memory.
     */
    private static Long totalFromParts(Row r) {
        Long used = r.read("memory.used", NvidiaReaders.MIB);
        Long free = r.read("memory.free", NvidiaReaders.MIB);
        if (used == null || free == null) {
            return null;
        }
        Long reserved = r.read("memory.reserved", NvidiaReaders.MIB);
        r.notes().add(Diagnostic.info(PROBE, r.file(), r.line(), "no memory.total column: the total is memory.used + memory.free"
                + (reserved == null ? "" : " + memory.reserved")));
        return used + free + (reserved == null ? 0 : reserved);
    }

    private static Health lostHealth(List<String> values, List<String> header) {
        for (int i = 0; i < values.size(); i++) {
            if (NvidiaValues.signalsLostGpu(values.get(i))) {
                String where = header == null ? "a value" : "'" + fieldOf(header.get(i)) + "'";
                return Health.of(List.of(HealthReason.GPU_LOST), null, List.of(where + " reads '" + values.get(i) + "'"));
            }
        }
        return null;
    }

    private static PciAddress address(String v) {
        if (NvidiaValues.isPlaceholder(v)) {
            return null;
        }
        return PciAddress.parse(v).orElseThrow(() ->
                new IllegalArgumentException("'" + v + "' is not a PCI bus id (expected 00000000:01:00.0)"));
    }

    /** {@code 0x268410DE} (device and vendor) or {@code 0x2684} (device only, as some drivers print it). */
    private static String[] deviceId(String v) {
        if (NvidiaValues.isPlaceholder(v)) {
            return null;
        }
        Matcher short4 = ID4.matcher(v.strip());
        if (short4.matches()) {
            return new String[] {short4.group(1).toLowerCase(Locale.ROOT), null};
        }
        return NvidiaValues.packedId(v);
    }

    private static String computeCapability(String v) {
        if (NvidiaValues.isPlaceholder(v)) {
            return null;
        }
        if (!v.strip().matches("\\d+\\.\\d+")) {
            throw new IllegalArgumentException("'" + v.strip() + "' is not a compute capability (expected major.minor, like 8.9)");
        }
        return v.strip();
    }

    private static <T> T firstOf(T a, T b) {
        return a != null ? a : b;
    }

    /** One row's values by field name, turning a value that does not parse into a warning with its line and column. */
    private record Row(List<String> header, List<String> values, int line, String file, List<Diagnostic> notes) {

        private int column(String field) {
            for (int i = 0; i < header.size(); i++) {
                if (fieldOf(header.get(i)).equals(field)) {
                    return i;
                }
            }
            return -1;
        }

        boolean has(String field) {
            return column(field) >= 0;
        }

        String raw(String field) {
            int c = column(field);
            return c < 0 ? null : values.get(c);
        }

        String text(String field) {
            return NvidiaValues.value(raw(field));
        }

        <T> T read(String field, Function<String, T> reader) {
            String v = raw(field);
            if (v == null) {
                return null;
            }
            try {
                return reader.apply(v);
            } catch (IllegalArgumentException e) {
                notes.add(Diagnostic.warning(PROBE, file, line, field + " (column " + (column(field) + 1) + "): " + e.getMessage()));
                return null;
            }
        }
    }
}
