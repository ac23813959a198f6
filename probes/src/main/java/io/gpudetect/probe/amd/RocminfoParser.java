package io.gpudetect.probe.amd;

import io.gpudetect.model.Diagnostic;
import io.gpudetect.model.Gpu;
import io.gpudetect.model.PciAddress;
import io.gpudetect.model.Vendor;
import io.gpudetect.probe.HexId;
import io.gpudetect.probe.ParsedOutput;
import io.gpudetect.tables.MemorySize;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code rocminfo}'s text: one block per HSA agent ({@code Agent 2} between star lines). Only agents with
 * {@code Device Type: GPU} are GPUs; the CPU agents (one per NUMA node) are not. The GPU's VRAM is its
 * first {@code GLOBAL} pool (coarse grained); {@code BDFID} packs bus, device and function
 * ({@code bus << 8 | device << 3 | function}) without the PCI domain, which rocminfo does not print.
 */
public final class RocminfoParser {

    public static final String PROBE = "rocminfo";

    private static final Pattern AGENT = Pattern.compile("^Agent\\s+(\\d+)\\s*$");
    private static final Pattern SIZE_KB = Pattern.compile("^(\\d{1,18})(?:\\(0x[0-9a-fA-F]+\\))?\\s*KB$");

    private RocminfoParser() {
    }

    public static ParsedOutput parse(String text, String file) {
        List<Diagnostic> diagnostics = new ArrayList<>();
        List<Gpu> gpus = new ArrayList<>();
        if (text.indexOf('\u001B') >= 0) {
            text = withoutColours(text);
        }
        Agent agent = null;
        boolean sawAgents = false;
        // "ROCk module version 6.2.4 is loaded", the first line: the amdgpu kernel driver's version (ROCm 6 and
        // later print it; older ones print "ROCk module is loaded").
        String driver = null;
        int lineNo = 0;
        // Lines and fields are cut by hand, not with a regex per line: rocminfo prints ~150 lines per agent,
        // and a one-shot gpu-detect runs this code once, in the interpreter, on every start
        // (docs/performance.md, "Start-up and footprint tricks", row "lines split without a regex").
        for (int start = 0; start <= text.length(); ) {
            int end = text.indexOf('\n', start);
            boolean crlf = end > start && text.charAt(end - 1) == '\r';
            if (end < 0) {
                end = text.length();
            }
            String line = text.substring(start, crlf ? end - 1 : end);
            start = end + 1;
            lineNo++;
            int lead = 0;
            while (lead < line.length() && Character.isWhitespace(line.charAt(lead))) {
                lead++;
            }
            if (!sawAgents && line.startsWith("ROCk module version ", lead)) {
                String[] words = line.strip().split("\\s+");
                if (words.length >= 4 && words[3].matches("\\d+(\\.\\d+)+")) {
                    driver = words[3];
                }
                continue;
            }
            if (line.startsWith("Agent", lead)) {
                Matcher a = AGENT.matcher(line.strip());
                if (a.matches()) {
                    finish(agent, gpus, diagnostics, file, driver);
                    agent = new Agent(lineNo, a.group(1));
                    sawAgents = true;
                    continue;
                }
            }
            if (line.startsWith("*** Done", lead)) {
                finish(agent, gpus, diagnostics, file, driver);
                agent = null;
                continue;
            }
            int indent = 0;
            while (indent < line.length() && isSpace(line.charAt(indent))) {
                indent++;
            }
            int colon = line.indexOf(':', indent);
            if (colon == indent && indent > 0) {
                indent--; // what the old pattern "^(\\s*)([^:]+?):" gave: the key takes one space back
            }
            if (agent == null || colon <= indent) {
                continue;
            }
            String key = line.substring(indent, colon).strip();
            String value = stripSpace(line, colon + 1);
            if (indent <= 2) {
                agent.fields.putIfAbsent(key, new Value(value, lineNo));
            } else if (key.equals("Segment")) {
                agent.pools.add(new Pool(value, null, lineNo));
            } else if (key.equals("Size") && !agent.pools.isEmpty() && agent.pools.get(agent.pools.size() - 1).size == null) {
                Pool last = agent.pools.remove(agent.pools.size() - 1);
                agent.pools.add(new Pool(last.segment, value, last.line));
            }
        }
        finish(agent, gpus, diagnostics, file, driver);
        if (!sawAgents) {
            diagnostics.add(Diagnostic.error(PROBE, file, null,
                    "no 'Agent N' blocks found; expected rocminfo output listing HSA agents"));
        }
        return new ParsedOutput(gpus, diagnostics);
    }

    private static void finish(Agent agent, List<Gpu> gpus, List<Diagnostic> diagnostics, String file, String driver) {
        if (agent == null) {
            return;
        }
        Value type = agent.fields.get("Device Type");
        if (type == null) {
            diagnostics.add(Diagnostic.warning(PROBE, file, agent.line,
                    "agent " + agent.number + " has no 'Device Type' line (expected CPU, GPU or DSP); skipped"));
            return;
        }
        if (!type.text.equals("GPU")) {
            return;
        }
        Gpu.Builder b = Gpu.builder(PROBE).vendor(vendorOf(agent)).driverVersion(driver);
        String marketing = text(agent, "Marketing Name");
        String name = text(agent, "Name");
        b.name(marketing != null ? marketing : name);
        if (isGfxTarget(name)) {
            b.architecture(name);
        }
        Value chip = agent.fields.get("Chip ID");
        if (chip != null) {
            String id = HexId.id16FromParenthesised(chip.text);
            if (id == null) {
                diagnostics.add(Diagnostic.warning(PROBE, file, chip.line,
                        "Chip ID '" + chip.text + "' is not 'decimal(0xhex)'; device id left out"));
            } else if (!id.equals("0000")) {
                b.pciDeviceId(id);
            }
        }
        Value bdf = agent.fields.get("BDFID");
        if (bdf != null) {
            Long packed = HexId.parseLong(bdf.text);
            if (packed == null || packed < 0 || packed > 0xffff) {
                diagnostics.add(Diagnostic.warning(PROBE, file, bdf.line,
                        "BDFID '" + bdf.text + "' is not a 16-bit number; PCI address left out"));
            } else if (packed != 0) {
                b.pciAddress(new PciAddress(0, (int) (packed >> 8), (int) ((packed >> 3) & 0x1f), (int) (packed & 7)));
            }
        }
        Value cu = agent.fields.get("Compute Unit");
        if (cu != null) {
            Integer n = HexId.leadingInt(cu.text);
            if (n == null) {
                diagnostics.add(Diagnostic.warning(PROBE, file, cu.line,
                        "Compute Unit '" + cu.text + "' is not a number"));
            }
            b.computeUnits(n);
        }
        b.uuid(AmdIds.uuidFromHex(text(agent, "Uuid")));
        b.memoryMiB(vram(agent, diagnostics, file));
        gpus.add(b.build());
    }

    /** The first coarse-grained GLOBAL pool is the card's own memory; fine-grained ones are host memory. */
    private static Long vram(Agent agent, List<Diagnostic> diagnostics, String file) {
        for (Pool pool : agent.pools) {
            if (pool.segment.startsWith("GLOBAL") && pool.segment.contains("COARSE GRAINED") && pool.size != null) {
                Matcher m = SIZE_KB.matcher(pool.size.strip());
                if (!m.matches() || !MemorySize.isPlausibleMiB(Long.parseLong(m.group(1)) / 1024)) {
                    diagnostics.add(Diagnostic.warning(PROBE, file, pool.line,
                            "GLOBAL pool size '" + pool.size + "' is not 'N(0xhex) KB' of a plausible size; VRAM left out"));
                    return null;
                }
                return Long.parseLong(m.group(1)) / 1024;
            }
        }
        return null;
    }

    /**
     * The text without terminal colour codes ({@code ESC [ 0-9;... letter}), which rocminfo prints around
     * headings; by hand, as a regex replace over the whole output cost more than the parse (docs/performance.md,
     * "Start-up and footprint tricks", row "JSON without a JSON library", measured with it).
     */
    static String withoutColours(String text) {
        StringBuilder out = new StringBuilder(text.length());
        int copied = 0;
        for (int esc = text.indexOf('\u001B'); esc >= 0; esc = text.indexOf('\u001B', esc + 1)) {
            if (esc + 1 < text.length() && text.charAt(esc + 1) == '[') {
                int j = esc + 2;
                while (j < text.length() && (text.charAt(j) >= '0' && text.charAt(j) <= '9' || text.charAt(j) == ';')) {
                    j++;
                }
                if (j < text.length() && isAsciiLetter(text.charAt(j))) {
                    out.append(text, copied, esc);
                    copied = j + 1;
                    esc = j;
                }
            }
        }
        return out.append(text, copied, text.length()).toString();
    }

    private static boolean isAsciiLetter(char c) {
        return c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z';
    }

    /** An LLVM target name: {@code gfx906}, {@code gfx90a}. */
    private static boolean isGfxTarget(String name) {
        if (name == null || name.length() < 4 || !name.startsWith("gfx")) {
            return false;
        }
        for (int i = 3; i < name.length(); i++) {
            char c = name.charAt(i);
            if (!(c >= '0' && c <= '9' || c >= 'a' && c <= 'f')) {
                return false;
            }
        }
        return true;
    }

    /** Whitespace as a regex's {@code \\s} means it: space, tab, line feed, vertical tab, form feed, return. */
    private static boolean isSpace(char c) {
        return c == ' ' || c == '\t' || c == '\n' || c == '\u000B' || c == '\f' || c == '\r';
    }

    /** {@code s} from {@code from} on, without leading and trailing whitespace. */
    private static String stripSpace(String s, int from) {
        int to = s.length();
        while (from < to && isSpace(s.charAt(from))) {
            from++;
        }
        while (to > from && isSpace(s.charAt(to - 1))) {
            to--;
        }
        return s.substring(from, to);
    }

    private static Vendor vendorOf(Agent agent) {
        String vendor = text(agent, "Vendor Name");
        Vendor v = Vendor.fromName(vendor);
        return v == Vendor.OTHER ? Vendor.AMD : v;
    }

    private static String text(Agent agent, String key) {
        Value v = agent.fields.get(key);
        return v == null || v.text.isBlank() ? null : v.text;
    }

    private record Value(String text, int line) {
    }

    private record Pool(String segment, String size, int line) {
    }

    private static final class Agent {
        final int line;
        final String number;
        final Map<String, Value> fields = new LinkedHashMap<>();
        final List<Pool> pools = new ArrayList<>();

        Agent(int line, String number) {
            this.line = line;
            this.number = number;
        }
    }
}
