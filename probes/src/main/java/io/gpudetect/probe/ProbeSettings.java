package io.gpudetect.probe;

import io.gpudetect.nvml.JnaNvmlScope;
import java.nio.file.Path;
import java.time.Duration;

/**
 * What a user can tell the probes about the host beyond the {@link io.gpudetect.source.Source}: where the
 * NVIDIA driver's libraries are mounted, and how long NVML may take.
 *
 * @param driverRoot  a folder holding the host's driver ({@code /run/nvidia/driver}, {@code /host}); null for
 *                    the system's library paths only
 * @param nvmlTimeout how long one NVML pass may take before the probe gives up on it (a wedged GPU can
 *                    block {@code nvmlInit}); default {@link #DEFAULT_NVML_TIMEOUT}
 * @param nvmlSession whether NVML stays initialised between passes: held by the agent, which passes every
 *                    minute; initialised and shut down by each one-shot detection
 */
public record ProbeSettings(Path driverRoot, Duration nvmlTimeout, JnaNvmlScope.Session nvmlSession) {

    /** Long enough for {@code nvmlInit} on an 8-GPU host without the persistence daemon. */
    public static final Duration DEFAULT_NVML_TIMEOUT = Duration.ofSeconds(30);

    public ProbeSettings {
        nvmlTimeout = nvmlTimeout == null ? DEFAULT_NVML_TIMEOUT : nvmlTimeout;
        nvmlSession = nvmlSession == null ? JnaNvmlScope.Session.PER_SNAPSHOT : nvmlSession;
    }

    public static ProbeSettings defaults() {
        return new ProbeSettings(null, DEFAULT_NVML_TIMEOUT, JnaNvmlScope.Session.PER_SNAPSHOT);
    }

    public ProbeSettings withDriverRoot(Path root) {
        return new ProbeSettings(root, nvmlTimeout, nvmlSession);
    }

    public ProbeSettings withNvmlSession(JnaNvmlScope.Session session) {
        return new ProbeSettings(driverRoot, nvmlTimeout, session);
    }
}
