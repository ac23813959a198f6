package io.gpudetect.probe.pci;

import io.gpudetect.model.Diagnostic;
import io.gpudetect.model.Health;
import io.gpudetect.model.HealthReason;
import io.gpudetect.source.Source;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The health a GPU's PCI function shows in sysfs, for every vendor, read at each pass:
 * <ul>
 * <li>whether the function still answers on the bus: the first four bytes of its config space (vendor and device
 *     id) read as all ones ({@code ffffffff}) when the device no longer responds, the way PCI reports a read of a
 *     device that is gone (fallen off the bus, a link down, a surprise removal the kernel has not processed);</li>
 * <li>amdgpu's RAS error counts: one {@code <block>_err_count} file per hardware block under the function's
 *     {@code ras/} folder ({@code umc_err_count}, {@code gfx_err_count}, {@code sdma_err_count}, ...), each
 *     {@code ue: N} (uncorrectable) and {@code ce: N} (correctable) since the driver loaded (the kernel's
 *     amdgpu_ras.c). Any uncorrectable error fails the GPU; {@link #CORRECTABLE_THRESHOLD} correctable ones
 *     degrade it.</li>
 * </ul>
 * A function that answers and has no {@code ras/} folder says nothing: its health stays unknown (or as a
 * vendor's library or tool says it) rather than reading as ok. NVIDIA functions are left to NVML and
 * nvidia-smi, which read the GPU itself.
 */
public final class PciHealth {

    /**
     * Correctable errors (all blocks together, since the driver loaded) from which an AMD GPU is degraded. Our
     * choice, not AMD's: a few corrected errors are normal on HBM, a steady stream is a card to watch; amdgpu
     * retires a page itself when its own bad-page threshold is reached.
     */
    public static final long CORRECTABLE_THRESHOLD = 100;
    /** How much of the config space tells whether the function answers: its vendor and device id. */
    static final int ID_BYTES = 4;
    private static final Pattern COUNT = Pattern.compile("(?m)^\\s*(ue|ce)\\s*:\\s*([0-9]{1,18})\\s*$");

    private PciHealth() {
    }

    /**
     * The function's health from its folder {@code dir}; null when the folder tells nothing (no config recorded,
     * no {@code ras/} folder).
     */
    public static Health read(Source source, String dir, List<Diagnostic> diagnostics) throws IOException {
        List<HealthReason> reasons = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        boolean known = false;
        Optional<byte[]> config = source.readBytes(dir + "/config", ID_BYTES);
        if (config.isPresent() && config.get().length == ID_BYTES && allOnes(config.get())) {
            known = true;
            reasons.add(HealthReason.GPU_LOST);
            problems.add("its PCI config space reads ffffffff: the function no longer answers on the bus");
        }
        String ras = dir + "/ras";
        if (!reasons.contains(HealthReason.GPU_LOST) && source.exists(ras)) {
            long ue = 0;
            long ce = 0;
            List<String> failing = new ArrayList<>();
            for (String file : source.list(ras)) {
                if (!file.endsWith("_err_count")) {
                    continue;
                }
                Optional<String> text = source.readFile(ras + "/" + file);
                if (text.isEmpty()) {
                    continue;
                }
                long[] counts = counts(text.get());
                if (counts == null) {
                    diagnostics.add(Diagnostic.warning(SysfsPciProbe.NAME, ras + "/" + file, 1,
                            "expected 'ue: N' and 'ce: N' lines, found '" + abbreviate(text.get()) + "'"));
                    continue;
                }
                known = true;
                ue += counts[0];
                ce += counts[1];
                if (counts[0] > 0) {
                    failing.add(file.substring(0, file.length() - "_err_count".length()) + " " + counts[0]);
                }
            }
            if (ue > 0) {
                reasons.add(HealthReason.RAS_UNCORRECTABLE);
                problems.add(ue + " uncorrectable RAS errors since the driver loaded (" + String.join(", ", failing) + ")");
            }
            if (ce >= CORRECTABLE_THRESHOLD) {
                reasons.add(HealthReason.CORRECTABLE_ERRORS);
                problems.add(ce + " correctable RAS errors since the driver loaded (degraded from "
                        + CORRECTABLE_THRESHOLD + ")");
            }
        }
        return known ? Health.of(reasons, null, problems) : null;
    }

    /**
     * What {@link #read} reads, as text, for the agent's steady passes to compare: a change in it means the health
     * may have changed. Nothing is parsed.
     */
    public static String fingerprint(Source source, String dir) throws IOException {
        StringBuilder b = new StringBuilder();
        Optional<byte[]> config = source.readBytes(dir + "/config", ID_BYTES);
        b.append(config.map(c -> allOnes(c) ? "gone" : "answers").orElse("-"));
        // Listed without asking whether it exists (an absent folder lists as nothing): asking is an lstat that a live
        // source's NIO turns into an exception where there is no ras/ folder (every GPU but an AMD one), ~40 us of
        // the agent's interpreted pass thread for a BMC's VGA on every pass.
        String ras = dir + "/ras";
        for (String file : source.list(ras)) {
            if (file.endsWith("_err_count")) {
                b.append(' ').append(file).append('=').append(source.readFile(ras + "/" + file).orElse("").strip());
            }
        }
        return b.toString();
    }

    /** {@code {ue, ce}} of one count file; null when it holds neither line. */
    static long[] counts(String text) {
        long[] counts = {0, 0};
        boolean any = false;
        Matcher m = COUNT.matcher(text);
        while (m.find()) {
            any = true;
            counts[m.group(1).equals("ue") ? 0 : 1] += Long.parseLong(m.group(2));
        }
        return any ? counts : null;
    }

    private static boolean allOnes(byte[] bytes) {
        for (byte b : bytes) {
            if (b != (byte) 0xff) {
                return false;
            }
        }
        return bytes.length > 0;
    }

    private static String abbreviate(String s) {
        String one = s.strip().replaceAll("\\s+", " ");
        return one.length() > 60 ? one.substring(0, 60) + "..." : one;
    }
}
