package io.gpudetect.probe.nvidia;

import io.gpudetect.model.Diagnostic;
import io.gpudetect.model.Gpu;
import io.gpudetect.model.Health;
import io.gpudetect.model.HealthReason;
import io.gpudetect.model.Partition;
import io.gpudetect.model.Partitioning;
import io.gpudetect.model.PciAddress;
import io.gpudetect.model.Vendor;
import io.gpudetect.probe.ParsedOutput;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The table plain {@code nvidia-smi} prints, the form people paste most. Read by cells, not by column
 * positions, because the widths changed between drivers: each GPU is a block of two lines (old drivers)
 * or three (with the {@code MIG M.} cell) between {@code +---+} rules; the banner carries the driver
 * ({@code Driver Version:}, or {@code KMD Version:} on Windows R610+) and CUDA version. The optional
 * {@code MIG devices:} table gives the instances; the process list is ignored.
 *
 * <p>The table cuts long names to fit ({@code NVIDIA GeForce RTX 2080 ...}): such a name is kept as
 * printed, with its {@code ...}, and a note says so; the normaliser does not take a model from it.
 */
public final class NvidiaSmiTableParser {

    public static final String PROBE = "nvidia-smi-table";
    private static final Pattern DRIVER = Pattern.compile("(?i)(?:Driver|KMD) Version:\\s*(\\S+)");
    private static final Pattern CUDA = Pattern.compile("(?i)CUDA(?: UMD)? Version:\\s*(\\S+)");
    /** First cell of a GPU's first line: index, name, then Persistence-M or Driver-Model. */
    private static final Pattern GPU_CELL = Pattern.compile("^\\s*(\\d{1,9})\\s+(.+?)\\s+(On|Off|WDDM|TCC|MCDM|N/A)\\s*$");
    private static final Pattern USED_TOTAL = Pattern.compile("^\\s*(\\S+)\\s*/\\s*(\\S+)\\s*$");
    private static final Pattern MIG_IDS = Pattern.compile("^\\s*(\\d{1,9})\\s+(\\d{1,9})\\s+(\\d{1,9})\\s+(\\d{1,9})\\s*$");

    private NvidiaSmiTableParser() {
    }

    public static ParsedOutput parse(String text, String file) {
        List<Diagnostic> notes = new ArrayList<>();
        List<String> lines = text.lines().toList();
        if (DmonText.looksLikeDmon(lines)) {
            // 'nvidia-smi dmon' saved where the table belongs: a time series of indexes, one GPU each.
            return DmonText.parse(lines, PROBE, file);
        }
        String driver = null;
        String cuda = null;
        Integer bannerLine = null;
        for (int i = 0; i < lines.size() && bannerLine == null; i++) {
            if (lines.get(i).contains("NVIDIA-SMI") && DRIVER.matcher(lines.get(i)).find()) {
                bannerLine = i + 1;
                driver = find(DRIVER, lines.get(i));
                if (driver != null && !driver.matches("\\d+(\\.\\d+){1,3}")) {
                    notes.add(Diagnostic.warning(PROBE, file, i + 1, "'" + driver + "' is not a driver version (expected numbers and dots, like 535.86.05)"));
                    driver = null;
                }
                cuda = find(CUDA, lines.get(i));
            }
        }
        Map<Integer, Gpu.Builder> byIndex = new LinkedHashMap<>();
        List<Gpu> lost = new ArrayList<>();
        Map<Integer, List<Partition>> migDevices = new LinkedHashMap<>();
        Section section = Section.NONE;
        boolean gpuTableSeen = false;
        List<Row> block = new ArrayList<>();
        for (int i = 0; i < lines.size(); i++) {
            String line = lines.get(i);
            Optional<Gpu> lostGpu = LostGpuLine.read(line.replace("|", " ").strip(), PROBE);
            if (lostGpu.isPresent()) {
                lost.add(lostGpu.get().toBuilder(PROBE).driverVersion(driver).runtimeVersion(cuda).build());
                continue;
            }
            String t = line.strip();
            if (t.startsWith("| MIG devices:")) {
                section = Section.MIG_HEADER;
            } else if (t.startsWith("| Processes:")) {
                // Its own rule of '=' follows: never the GPU table's, where the paste left that out.
                section = Section.PROCESSES;
            } else if (t.startsWith("|==") || t.startsWith("+==")) {
                if (section == Section.NONE && !gpuTableSeen) {
                    section = Section.GPUS;
                    gpuTableSeen = true;
                } else if (section == Section.MIG_HEADER) {
                    section = Section.MIG;
                }
            } else if (t.startsWith("+-") || t.startsWith("|-") || t.isEmpty()) {
                if (section == Section.GPUS) {
                    readGpuBlock(block, byIndex, driver, cuda, file, notes);
                } else if (section == Section.MIG) {
                    readMigBlock(block, migDevices, file, notes);
                }
                block.clear();
                if (t.isEmpty() && section != Section.MIG_HEADER) {
                    section = Section.NONE;
                }
            } else if (t.startsWith("|") && (section == Section.GPUS || section == Section.MIG)) {
                block.add(new Row(i + 1, cells(t)));
            }
        }
        if (section == Section.GPUS) {
            readGpuBlock(block, byIndex, driver, cuda, file, notes);
        }

        List<Gpu> gpus = new ArrayList<>();
        for (Map.Entry<Integer, Gpu.Builder> e : byIndex.entrySet()) {
            Gpu.Builder b = e.getValue();
            Gpu partial = b.build();
            if (partial.partitioning() != null && Boolean.TRUE.equals(partial.partitioning().enabled())) {
                b.partitioning(new Partitioning("mig", true, null, migDevices.getOrDefault(e.getKey(), List.of())));
            }
            gpus.add(b.build());
        }
        if (byIndex.isEmpty() && !migDevices.isEmpty()) {
            gpus.addAll(gpusOfMigDevicesAlone(migDevices, driver, cuda, file, notes));
        }
        gpus.addAll(lost);
        if (gpus.isEmpty()) {
            if (text.contains("No devices were found")) {
                notes.add(Diagnostic.warning(PROBE, file, null, "nvidia-smi found no devices"));
            } else if (bannerLine == null) {
                notes.add(Diagnostic.error(PROBE, file, 1, "expected the table plain 'nvidia-smi' prints (a '| NVIDIA-SMI ... "
                        + "Driver Version: ...' banner, then one row per GPU); first line reads '" + firstLine(text) + "'"));
            } else {
                notes.add(Diagnostic.error(PROBE, file, bannerLine,
                        "the banner is here but no GPU row follows (expected '|   0  <name>  Off |  00000000:01:00.0 Off | ...')"));
            }
        }
        return new ParsedOutput(gpus, notes);
    }

    private enum Section { NONE, GPUS, MIG_HEADER, MIG, PROCESSES }

    private record Row(int line, List<String> cells) {
        String cell(int i) {
            return i < cells.size() ? cells.get(i) : "";
        }
    }

    private static void readGpuBlock(List<Row> block, Map<Integer, Gpu.Builder> byIndex, String driver, String cuda,
                                     String file, List<Diagnostic> notes) {
        if (block.isEmpty()) {
            return;
        }
        Row first = block.get(0);
        Matcher m = GPU_CELL.matcher(first.cell(0));
        if (!m.matches()) {
            notes.add(Diagnostic.warning(PROBE, file, first.line(), "expected a GPU row starting '|   0  <name>  Off |', found '"
                    + String.join("|", first.cells()).strip() + "'; the row is left out"));
            return;
        }
        int index = Integer.parseInt(m.group(1));
        Gpu.Builder b = Gpu.builder(PROBE).vendor(Vendor.NVIDIA).driverVersion(driver).runtimeVersion(cuda);
        String name = m.group(2).strip();
        boolean anyLost = false;
        List<String> problems = new ArrayList<>();
        if (NvidiaValues.signalsLostGpu(name)) {
            anyLost = true;
            problems.add("the name reads '" + name + "'");
        } else if (!NvidiaValues.isPlaceholder(name)) {
            b.name(name);
            if (name.endsWith("...")) {
                notes.add(Diagnostic.info(PROBE, file, first.line(), "the table cut the name short ('" + name
                        + "'); nvidia-smi -L or -q prints it in full"));
            }
        }
        String busCell = first.cell(1).strip();
        String busId = busCell.isEmpty() ? null : busCell.split("\\s+")[0];
        PciAddress address = PciAddress.parse(busId).orElse(null);
        if (address == null && busId != null && !NvidiaValues.isPlaceholder(busId)) {
            notes.add(Diagnostic.warning(PROBE, file, first.line(), "'" + busId + "' is not a PCI bus id (expected 00000000:01:00.0)"));
        }
        b.pciAddress(address);
        // 'Off' when ECC is disabled (GeForce cards): no count, nothing wrong.
        String eccCell = first.cell(2).strip();
        Long volatileEcc = eccCell.equalsIgnoreCase("Off") || eccCell.equalsIgnoreCase("On") || isErr(eccCell) ? null
                : readValue(NvidiaReaders.COUNT, eccCell, first.line(), "Volatile Uncorr. ECC", file, notes);
        if (block.size() > 1) {
            Row second = block.get(1);
            Matcher power = USED_TOTAL.matcher(lastTokens(second.cell(0)));
            if (power.matches() && !isErr(power.group(2))) {
                b.powerLimitWatts(readValue(NvidiaReaders.WATTS, power.group(2), second.line(), "power cap", file, notes));
            }
            Matcher memory = USED_TOTAL.matcher(second.cell(1));
            if (memory.matches() && !isErr(memory.group(2))) {
                b.memoryMiB(readValue(NvidiaReaders.MIB, memory.group(2), second.line(), "memory total", file, notes));
            } else if (NvidiaValues.signalsLostGpu(second.cell(1))) {
                anyLost = true;
                problems.add("memory usage reads '" + second.cell(1).strip() + "'");
            }
        }
        if (block.size() > 2) {
            Boolean mig = NvidiaValues.enabled(block.get(2).cell(2));
            if (mig != null) {
                b.partitioning(new Partitioning("mig", mig, null, List.of()));
            }
        }
        for (Row r : block) {
            for (String c : r.cells()) {
                if (!anyLost && (NvidiaValues.signalsLostGpu(c) || isErr(c))) {
                    anyLost = true;
                    problems.add("a cell reads '" + c.strip() + "' (line " + r.line() + "): nvidia-smi could not read the GPU");
                }
            }
        }
        List<HealthReason> reasons = new ArrayList<>();
        if (anyLost) {
            reasons.add(HealthReason.GPU_LOST);
        }
        if (volatileEcc != null && volatileEcc > 0) {
            reasons.add(HealthReason.UNCORRECTABLE_ECC);
            problems.add(volatileEcc + " uncorrected ECC errors since the driver loaded");
        }
        b.health(Health.of(reasons, volatileEcc, problems));
        if (byIndex.containsKey(index)) {
            notes.add(Diagnostic.warning(PROBE, file, first.line(), "GPU " + index + " appears twice; the second row is left out"));
            return;
        }
        byIndex.put(index, b);
    }

    private static void readMigBlock(List<Row> block, Map<Integer, List<Partition>> migDevices, String file, List<Diagnostic> notes) {
        if (block.isEmpty()) {
            return;
        }
        Row first = block.get(0);
        Matcher ids = MIG_IDS.matcher(first.cell(0));
        if (!ids.matches()) {
            notes.add(Diagnostic.warning(PROBE, file, first.line(),
                    "expected a MIG device row starting '|  0    1   0   0  |' (GPU, GI, CI, MIG device), found '"
                            + first.cell(0).strip() + "'"));
            return;
        }
        Matcher memory = USED_TOTAL.matcher(first.cell(1));
        Long total = memory.matches() ? readValue(NvidiaReaders.MIB, memory.group(2), first.line(), "MIG memory total", file, notes) : null;
        String[] sm = first.cell(2).strip().split("\\s+");
        Integer multiprocessors = sm.length > 0 && sm[0].matches("\\d{1,9}") ? Integer.parseInt(sm[0]) : null;
        migDevices.computeIfAbsent(Integer.parseInt(ids.group(1)), k -> new ArrayList<>()).add(new Partition(null,
                Integer.parseInt(ids.group(2)), Integer.parseInt(ids.group(3)), total,
                multiprocessors, null));
    }

    /**
     * The table cut down to its "MIG devices" (and "Processes") sections, as people paste it when asked about MIG: no
     * GPU rows, so no name, bus id or total memory. Each GPU index the instances name is one GPU with MIG on; its memory
     * is at least what its instances hold (the memory outside them, and any instance not listed, is not in the paste),
     * and a warning says what is unknown.
     */
    private static List<Gpu> gpusOfMigDevicesAlone(Map<Integer, List<Partition>> migDevices, String driver, String cuda,
                                                   String file, List<Diagnostic> notes) {
        List<Gpu> gpus = new ArrayList<>();
        for (Map.Entry<Integer, List<Partition>> e : migDevices.entrySet()) {
            long sum = 0;
            boolean everySize = true;
            for (Partition p : e.getValue()) {
                if (p.memoryMiB() == null) {
                    everySize = false;
                } else {
                    sum += p.memoryMiB();
                }
            }
            Gpu.Builder b = Gpu.builder(PROBE).vendor(Vendor.NVIDIA).driverVersion(driver).runtimeVersion(cuda)
                    .partitioning(new Partitioning("mig", true, null, e.getValue()));
            if (sum > 0) {
                b.memoryMiB(sum);
            }
            notes.add(Diagnostic.warning(PROBE, file, null, "GPU " + e.getKey() + " is known only by its " + e.getValue().size()
                    + " MIG device" + (e.getValue().size() == 1 ? "" : "s") + " (no GPU row: the table was cut to its MIG devices)"
                    + ": its name, bus id and total memory are unknown"
                    + (sum > 0 ? "; its memory is at least the " + sum + " MiB its " + (everySize ? "" : "sized ") + "instances hold" : "")));
            gpus.add(b.build());
        }
        return gpus;
    }

    /** The table prints {@code ERR!} where NVML failed to read a value from the card: a GPU in trouble. */
    private static boolean isErr(String cell) {
        return cell.contains("ERR!");
    }

    private static <T> T readValue(java.util.function.Function<String, T> reader, String value, int line, String what,
                                   String file, List<Diagnostic> notes) {
        try {
            return reader.apply(value.strip());
        } catch (IllegalArgumentException e) {
            notes.add(Diagnostic.warning(PROBE, file, line, what + ": " + e.getMessage()));
            return null;
        }
    }

    /**
     * {@code 29W /  400W} at the end of the fan/temp/perf cell: the last two tokens around the slash that has
     * spaces on both sides ({@code N/A /  N/A} on cards that report no power holds two more).
     */
    private static String lastTokens(String cell) {
        int slash = cell.lastIndexOf(" / ");
        if (slash >= 0) {
            slash++;
        } else {
            slash = cell.lastIndexOf('/');
        }
        if (slash < 0) {
            return "";
        }
        String before = cell.substring(0, slash).strip();
        int space = before.lastIndexOf(' ');
        return before.substring(space + 1) + " / " + cell.substring(slash + 1).strip();
    }

    private static List<String> cells(String row) {
        String inner = row.strip();
        inner = inner.substring(1, inner.endsWith("|") && inner.length() > 1 ? inner.length() - 1 : inner.length());
        return List.of(inner.split("\\|", -1));
    }

    private static String find(Pattern p, String line) {
        Matcher m = p.matcher(line);
        return m.find() ? NvidiaValues.value(m.group(1)) : null;
    }

    private static String firstLine(String text) {
        String line = text.strip().lines().findFirst().orElse("");
        return line.length() > 80 ? line.substring(0, 80) + "..." : line;
    }
}
