package io.gpudetect.nvml;

/**
 * What one NVML call answered: the symbol that answered ({@code nvmlDeviceGetPciInfo_v3}), its return code
 * with the code's name ({@code status}) and, on failure, {@code nvmlErrorString}'s text; {@code value} on
 * success. A symbol the library does not export is recorded as {@code NVML_ERROR_FUNCTION_NOT_FOUND} with
 * every name that was tried: a missing fact, like a feature the GPU does not support.
 */
public record NvmlCall<T>(String function, int returnCode, String status, String error, T value) {

    /** {@code NVML_SUCCESS}: named once, not at every call that succeeds (~60 a pulse of an agent's steady pass). */
    private static final String SUCCESS = NvmlReturn.name(NvmlReturn.SUCCESS);

    public static <T> NvmlCall<T> success(String function, T value) {
        return new NvmlCall<>(function, NvmlReturn.SUCCESS, SUCCESS, null, value);
    }

    public static <T> NvmlCall<T> failure(String function, int returnCode, String error) {
        return new NvmlCall<>(function, returnCode, NvmlReturn.name(returnCode), error, null);
    }

    public boolean ok() {
        return returnCode == NvmlReturn.SUCCESS;
    }

    /** The value, or the failure as an exception carrying the code and NVML's message. */
    public T get() throws NvmlException {
        if (!ok()) {
            throw new NvmlException(function, returnCode, error);
        }
        return value;
    }

    /** The same outcome without the value: how a handle, which means nothing outside this process, is recorded. */
    public NvmlCall<Void> outcome() {
        return new NvmlCall<>(function, returnCode, status, error, null);
    }

    /** The same outcome with the value mapped (null stays null). */
    public <R> NvmlCall<R> map(java.util.function.Function<T, R> f) {
        return new NvmlCall<>(function, returnCode, status, error, value == null ? null : f.apply(value));
    }
}
