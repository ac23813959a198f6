package io.gpudetect.nvml;

/** An NVML call that did not return {@code NVML_SUCCESS}: the code, the function and the library's own words for it. */
public final class NvmlException extends Exception {

    private static final long serialVersionUID = 1L;

    private final int returnCode;
    private final String function;

    public NvmlException(String function, int returnCode, String errorString) {
        super(function + " returned " + NvmlReturn.name(returnCode)
                + (errorString == null || errorString.isBlank() ? "" : " (" + errorString + ")"));
        this.returnCode = returnCode;
        this.function = function;
    }

    public int returnCode() {
        return returnCode;
    }

    public String function() {
        return function;
    }
}
