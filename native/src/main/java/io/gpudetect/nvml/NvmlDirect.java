package io.gpudetect.nvml;

import com.sun.jna.Native;
import com.sun.jna.NativeLibrary;
import java.io.IOException;
import java.io.InputStream;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;

/**
 * The calls of an agent's steady pulse through JNA's direct mapping: static {@code native} methods that JNA binds to
 * the library's symbols ({@link Native#register(Class, NativeLibrary)}), so that a call is one native method call,
 * where {@link com.sun.jna.Function#invoke} copies the arguments, converts each, boxes the answer and walks the
 * arguments again after the call: ~10 us a call in the agent's interpreter against ~1.3 us (docs/performance.md, "The
 * NVML pulse through JNA's direct mapping"). Only a held session's library is bound ({@link NvmlLibrary#callDirectly}):
 * binding reads each method by reflection once, which a one-shot command would pay for a handful of calls.
 *
 * <p>Why each library gets its own copy of a class, defined as a hidden class from the template's bytes: JNA binds a
 * class's native methods with JNI's {@code RegisterNatives}, for the whole JVM, so a class bound to one library cannot
 * serve another, and a second binding would move the first library's calls to the second. A process that held two
 * libraries (the tests hold several copies of the stand-in side by side, each its own host) would then call the wrong
 * one. A hidden class per library keeps the binding with the {@link NvmlApi} that made it, and no state is static.
 *
 * <p>What a library lacks: {@code Native.register} fails on the first symbol the library does not export, so a
 * template is bound only where the library exports every one of its symbols ({@link NvmlApi#exports}); otherwise its
 * calls stay with {@code Function}, where a missing symbol answers {@link NvmlApi#NOT_EXPORTED} as before. The clock
 * reasons' two names are templates of their own: drivers before R535 have only the older name, and a later driver may
 * drop it.
 */
final class NvmlDirect {

    private NvmlDirect() {
    }

    /** The pulse's calls whose symbols every driver with MIG, remapped rows and {@code nvmlEventSetWait_v2} has. */
    interface Pulse {
        int deviceCount(int[] deviceCount);

        int deviceHandle(int index, long[] device);

        int uuid(long device, byte[] uuid, int length);

        int migMode(long device, int[] currentMode, int[] pendingMode);

        int eccMode(long device, int[] current, int[] pending);

        int totalEccErrors(long device, int errorType, int counterType, long[] eccCounts);

        int retiredPagesPending(long device, int[] isPending);

        int remappedRows(long device, int[] corrRows, int[] uncRows, int[] isPending, int[] failureOccurred);

        int migDeviceHandle(long device, int index, long[] migDevice);

        int eventSetWait(long set, long data, int timeoutMs);
    }

    /** The template of {@link Pulse}: each method named as its symbol, with nvml.h's signature. */
    static final class PulseSymbols implements Pulse {
        private static native int nvmlDeviceGetCount_v2(int[] deviceCount);

        private static native int nvmlDeviceGetHandleByIndex_v2(int index, long[] device);

        private static native int nvmlDeviceGetUUID(long device, byte[] uuid, int length);

        private static native int nvmlDeviceGetMigMode(long device, int[] currentMode, int[] pendingMode);

        private static native int nvmlDeviceGetEccMode(long device, int[] current, int[] pending);

        private static native int nvmlDeviceGetTotalEccErrors(long device, int errorType, int counterType,
                                                              long[] eccCounts);

        private static native int nvmlDeviceGetRetiredPagesPendingStatus(long device, int[] isPending);

        private static native int nvmlDeviceGetRemappedRows(long device, int[] corrRows, int[] uncRows,
                                                            int[] isPending, int[] failureOccurred);

        private static native int nvmlDeviceGetMigDeviceHandleByIndex(long device, int index, long[] migDevice);

        private static native int nvmlEventSetWait_v2(long set, long data, int timeoutms);

        @Override
        public int deviceCount(int[] deviceCount) {
            return nvmlDeviceGetCount_v2(deviceCount);
        }

        @Override
        public int deviceHandle(int index, long[] device) {
            return nvmlDeviceGetHandleByIndex_v2(index, device);
        }

        @Override
        public int uuid(long device, byte[] uuid, int length) {
            return nvmlDeviceGetUUID(device, uuid, length);
        }

        @Override
        public int migMode(long device, int[] currentMode, int[] pendingMode) {
            return nvmlDeviceGetMigMode(device, currentMode, pendingMode);
        }

        @Override
        public int eccMode(long device, int[] current, int[] pending) {
            return nvmlDeviceGetEccMode(device, current, pending);
        }

        @Override
        public int totalEccErrors(long device, int errorType, int counterType, long[] eccCounts) {
            return nvmlDeviceGetTotalEccErrors(device, errorType, counterType, eccCounts);
        }

        @Override
        public int retiredPagesPending(long device, int[] isPending) {
            return nvmlDeviceGetRetiredPagesPendingStatus(device, isPending);
        }

        @Override
        public int remappedRows(long device, int[] corrRows, int[] uncRows, int[] isPending, int[] failureOccurred) {
            return nvmlDeviceGetRemappedRows(device, corrRows, uncRows, isPending, failureOccurred);
        }

        @Override
        public int migDeviceHandle(long device, int index, long[] migDevice) {
            return nvmlDeviceGetMigDeviceHandleByIndex(device, index, migDevice);
        }

        @Override
        public int eventSetWait(long set, long data, int timeoutMs) {
            return nvmlEventSetWait_v2(set, data, timeoutMs);
        }
    }

    /** {@code nvmlDeviceGetCurrentClocksEventReasons} or its older name: the same signature. */
    interface Clocks {
        int reasons(long device, long[] clocksEventReasons);
    }

    /** The template of {@link Clocks} under its name since R535. */
    static final class ClocksEventSymbol implements Clocks {
        private static native int nvmlDeviceGetCurrentClocksEventReasons(long device, long[] clocksEventReasons);

        @Override
        public int reasons(long device, long[] clocksEventReasons) {
            return nvmlDeviceGetCurrentClocksEventReasons(device, clocksEventReasons);
        }
    }

    /** The template of {@link Clocks} under its name before R535. */
    static final class ClocksThrottleSymbol implements Clocks {
        private static native int nvmlDeviceGetCurrentClocksThrottleReasons(long device, long[] clocksThrottleReasons);

        @Override
        public int reasons(long device, long[] clocksThrottleReasons) {
            return nvmlDeviceGetCurrentClocksThrottleReasons(device, clocksThrottleReasons);
        }
    }

    /**
     * A copy of {@code template} bound to {@code api}'s library, as {@code type}; null where the library does not
     * export each of the template's native methods' symbols, or the copy could not be made or bound (its class file not
     * readable as a resource, JNA refusing it): the calls then go through JNA's {@code Function}, as before.
     */
    static <T> T bind(NvmlApi api, NativeLibrary library, Class<? extends T> template, Class<T> type) {
        for (Method m : template.getDeclaredMethods()) {
            if (Modifier.isNative(m.getModifiers()) && !api.exports(m.getName())) {
                return null;
            }
        }
        String file = template.getName().substring(template.getName().lastIndexOf('.') + 1) + ".class";
        byte[] bytes;
        try (InputStream in = template.getResourceAsStream(file)) {
            if (in == null) {
                return null;
            }
            bytes = in.readAllBytes();
        } catch (IOException e) {
            return null;
        }
        try {
            MethodHandles.Lookup copy = MethodHandles.lookup().defineHiddenClass(bytes, true);
            Native.register(copy.lookupClass(), library);
            return type.cast(copy.findConstructor(copy.lookupClass(), MethodType.methodType(void.class)).invoke());
        } catch (LinkageError | RuntimeException e) {
            return null; // JNA's UnsatisfiedLinkError or IllegalArgumentException: the calls stay with Function
        } catch (Error e) {
            throw e;
        } catch (Throwable e) {
            return null; // MethodHandle.invoke declares Throwable; the template's constructor does nothing
        }
    }
}
