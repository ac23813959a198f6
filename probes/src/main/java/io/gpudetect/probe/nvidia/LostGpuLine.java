package io.gpudetect.probe.nvidia;

import io.gpudetect.model.Gpu;
import io.gpudetect.model.Health;
import io.gpudetect.model.HealthReason;
import io.gpudetect.model.PciAddress;
import io.gpudetect.model.Vendor;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The line every nvidia-smi form prints in place of a card it cannot talk to:
 * {@code Unable to determine the device handle for GPU0000:3B:00.0: GPU is lost. Reboot the system to
 * recover this GPU} (or {@code : Unknown Error}). The card is there and broken: it is reported, marked
 * lost, so that a bid never counts it and a person sees it.
 */
final class LostGpuLine {

    private static final Pattern LINE = Pattern.compile(
            "(?i)^\\s*Unable to determine the device handle for GPU\\s*([0-9a-f]{4,8}:[0-9a-f]{2}:[0-9a-f]{2}\\.[0-7])\\s*:\\s*(.*)$");

    private LostGpuLine() {
    }

    /** The lost card a line announces, or empty when it is any other line. */
    static Optional<Gpu> read(String line, String probe) {
        Matcher m = LINE.matcher(line);
        if (!m.matches()) {
            return Optional.empty();
        }
        String why = m.group(2).strip();
        return Optional.of(Gpu.builder(probe).vendor(Vendor.NVIDIA)
                .pciAddress(PciAddress.parse(m.group(1)).orElse(null))
                .health(Health.of(List.of(HealthReason.GPU_LOST), null,
                        List.of("nvidia-smi cannot reach the GPU: " + (why.isEmpty() ? "no reason given" : why))))
                .build());
    }
}
