package io.gpudetect.nvml;

/** No usable {@code libnvidia-ml.so.1} was found: the message lists where it was looked for and why each failed. */
public final class NvmlUnavailableException extends Exception {

    private static final long serialVersionUID = 1L;

    public NvmlUnavailableException(String message) {
        super(message);
    }
}
