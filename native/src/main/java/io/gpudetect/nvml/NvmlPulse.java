package io.gpudetect.nvml;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * What can change on an NVIDIA host while the agent runs, and nothing else: which devices answer and with which
 * UUID, their MIG and ECC modes (current and pending), uncorrected ECC errors and how many MIG devices each has,
 * the health checks ({@link #health}: uncorrected ECC errors since the driver loaded, pages or rows pending, a
 * row-remap failure, a hardware slowdown) and the driver's version. An agent's steady pass compares one with the last (two equal pulses: the full
 * snapshot would find what it found before), at about seven calls a GPU instead of a snapshot's twenty; where the
 * session is held, the MIG and ECC modes of one GPU a pulse, in turn ({@link HeldModes}).
 * Each part is kept as NVML answered it, a value or {@code rc=N}, so that a call that starts failing is a change.
 *
 * @param problem why there was nothing to ask (no library, init or count failed); null when there was
 */
public record NvmlPulse(String problem, String driverVersion, List<Device> devices) {

    public NvmlPulse {
        devices = devices == null ? List.of() : List.copyOf(devices);
    }

    // equals and hashCode by hand: a record's own go through method handles (ObjectMethods), which the agent's
    // interpreter runs slowly, and its steady pass compares two pulses every time (docs/performance.md, "The NVML
    // pulse"). The same component by component comparison.
    @Override
    public boolean equals(Object o) {
        return o == this || o instanceof NvmlPulse p && Objects.equals(problem, p.problem)
                && Objects.equals(driverVersion, p.driverVersion) && devices.equals(p.devices);
    }

    @Override
    public int hashCode() {
        return (Objects.hashCode(problem) * 31 + Objects.hashCode(driverVersion)) * 31 + devices.hashCode();
    }

    /**
     * One device by index.
     *
     * @param migDevices how many MIG devices answer, where MIG is on; null where it is not
     * @param health     the health checks' answers ({@link #health}); null where the handle failed
     */
    public record Device(int index, String handle, String uuid, String migMode, String eccMode, String eccErrors,
                         Integer migDevices, String health) {

        @Override
        public boolean equals(Object o) {
            return o == this || o instanceof Device d && index == d.index && Objects.equals(handle, d.handle)
                    && Objects.equals(uuid, d.uuid) && Objects.equals(migMode, d.migMode)
                    && Objects.equals(eccMode, d.eccMode) && Objects.equals(eccErrors, d.eccErrors)
                    && Objects.equals(migDevices, d.migDevices) && Objects.equals(health, d.health);
        }

        @Override
        public int hashCode() {
            int h = index;
            for (Object part : new Object[] {handle, uuid, migMode, eccMode, eccErrors, migDevices, health}) {
                h = h * 31 + Objects.hashCode(part);
            }
            return h;
        }
    }

    /**
     * The {@code nvmlClocksEventReason*} bits that are the hardware's doing: {@code HwSlowdown} (0x8),
     * {@code HwThermalSlowdown} (0x40), {@code HwPowerBrakeSlowdown} (0x80). The others (idle, application clocks,
     * software power cap, software thermal, sync boost, display clocks) follow load and settings and change from one
     * pass to the next on a healthy GPU.
     */
    public static final long HARDWARE_SLOWDOWN_BITS = 0x8L | 0x40L | 0x80L;

    /**
     * The health checks' answers as compared: each call's answer, the clock reasons masked to
     * {@link #HARDWARE_SLOWDOWN_BITS} so that a healthy GPU's changing reasons are no change.
     */
    static String health(NvmlCall<Long> eccVolatile, NvmlCall<Long> pagesPending,
                         NvmlCall<NvmlSnapshot.RemappedRows> rows, NvmlCall<Long> clocks) {
        // What "ecc=" + answer(eccVolatile) + " pages=" + ... would give, in one buffer of the right size: each GPU's
        // health at every pulse, where each answer made into a string first and the concatenation's growing buffer
        // were a fifth of the pulse in the agent's interpreter (docs/performance.md, "The NVML pulse").
        StringBuilder s = new StringBuilder(96).append("ecc=");
        append(s, eccVolatile, -1L);
        s.append(" pages=");
        append(s, pagesPending, -1L);
        s.append(" rows=");
        append(s, rows, -1L);
        s.append(" slowdown=");
        append(s, clocks, HARDWARE_SLOWDOWN_BITS);
        return s.toString();
    }

    /** {@link #answer} appended to {@code s}, a {@code Long} value masked with {@code mask}. */
    private static void append(StringBuilder s, NvmlCall<?> call, long mask) {
        if (call == null) {
            s.append("null");
        } else if (!call.ok()) {
            s.append("rc=").append(call.returnCode());
        } else if (call.value() instanceof Long bits) {
            s.append(bits & mask);
        } else if (call.value() instanceof NvmlSnapshot.RemappedRows r) {
            s.append(r.corrected()).append('/').append(r.uncorrected()).append('/').append(r.pending()).append('/')
                    .append(r.failure());
        } else {
            s.append(answer(call));
        }
    }

    /** The pulse a full snapshot shows: what a scope that reads only snapshots answers. */
    public static NvmlPulse of(NvmlSnapshot s) {
        String problem = problem(s.unavailable(), s.init(), s.deviceCount());
        if (problem != null) {
            return new NvmlPulse(problem, null, List.of());
        }
        List<Device> devices = new ArrayList<>();
        for (NvmlSnapshot.Device d : s.devices()) {
            devices.add(d.handle().ok()
                    ? new Device(d.index(), "ok", answer(d.uuid()), answer(d.migMode()), answer(d.eccMode()),
                            answer(d.eccUncorrectedAggregate()), d.migMode() != null && d.migMode().ok()
                                    && d.migMode().value().current() ? d.migDevices().size() : null,
                            health(d.eccUncorrectedVolatile(), d.retiredPagesPending(), d.remappedRows(),
                                    d.clocksEventReasons()))
                    : new Device(d.index(), answer(d.handle()), null, null, null, null, null, null));
        }
        return new NvmlPulse(null, answer(s.driverVersion()), devices);
    }

    /**
     * The pulse read from a library this process holds initialised: no init, no shutdown. A pulse equal to the last
     * one is that very object ({@link HeldModes#sameAsLast}), so that the steady pass's comparison ends at once. {@code maxMigDevices} keeps,
     * by device index, what the held session has answered for a GPU's most MIG devices: a property of the GPU, which
     * the session asks once (each ask is one of NVML's slow calls, ~170 us on an H100) and the caller forgets with
     * the session. {@code modes} keeps what the held session knows of each GPU ({@link HeldModes}): its MIG and ECC
     * modes, its handle and UUID, its MIG devices. One GPU a pulse, in turn, is read as a snapshot's pulse reads it
     * ({@link #readAll}); the others from their held handle ({@link #readHeld}), with only the calls whose answers
     * change on their own: the ECC counts, the memory repairs the GPU has, the clock reasons, and the MIG slots where
     * no MIG configuration event stands for them.
     */
    static NvmlPulse read(NvmlLibrary lib, Map<Integer, NvmlCall<Integer>> maxMigDevices, HeldModes modes) {
        NvmlCall<Integer> count = lib.deviceCount();
        if (!count.ok()) {
            return new NvmlPulse("count " + answer(count), null, List.of());
        }
        int n = count.value();
        int turn = modes.nextTurn(n);
        boolean migChanged = modes.migChanged(lib);
        List<Device> devices = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            NvmlDevice held = i == turn ? null : modes.handle(i, n);
            Device d = held == null ? null : readHeld(lib, i, n, held, maxMigDevices, modes, migChanged);
            devices.add(d != null ? d : readAll(lib, i, n, turn, maxMigDevices, modes));
        }
        String driver = modes.driverVersion(turn);
        if (driver == null) {
            driver = answer(lib.driverVersion());
            modes.driverVersion(driver);
        }
        return modes.sameAsLast(new NvmlPulse(null, driver, devices));
    }

    /**
     * The GPU at {@code index} with its handle and UUID asked, and its modes where it is its turn or they are not known
     * for that UUID: what every GPU's part of a pulse was before handles were held.
     */
    private static Device readAll(NvmlLibrary lib, int i, int count, int turn,
                                  Map<Integer, NvmlCall<Integer>> maxMigDevices, HeldModes modes) {
        NvmlCall<NvmlDevice> handle = lib.deviceHandle(i);
        if (!handle.ok()) {
            return new Device(i, answer(handle), null, null, null, null, null, null);
        }
        NvmlDevice d = handle.value();
        NvmlCall<String> uuidCall = lib.uuid(d);
        String uuid = answer(uuidCall);
        HeldModes.Known known = i == turn ? null : modes.known(i, uuid);
        NvmlCall<Long> pages;
        NvmlCall<NvmlSnapshot.RemappedRows> rows;
        if (known == null) {
            pages = lib.retiredPagesPending(d);
            rows = lib.remappedRows(d);
            known = new HeldModes.Known(uuid, lib.migMode(d), lib.eccMode(d), HeldModes.ifUnsupported(pages),
                    HeldModes.ifUnsupported(rows));
            modes.put(i, known);
        } else {
            pages = known.pages() != null ? known.pages() : lib.retiredPagesPending(d);
            rows = known.rows() != null ? known.rows() : lib.remappedRows(d);
        }
        if (uuidCall.ok()) {
            modes.holdHandle(i, count, d); // a GPU whose UUID does not answer is read this way at every pulse
        }
        NvmlCall<NvmlSnapshot.Modes> mig = known.mig();
        NvmlCall<NvmlSnapshot.Modes> ecc = known.ecc();
        Integer migDevices = null;
        if (mig.ok() && mig.value().current()) {
            modes.watchMig(lib, i, d);
            migDevices = walkMig(lib, i, d, maxMigDevices, false);
            modes.migDevices(i, count, migDevices);
        }
        boolean eccOn = ecc.ok() && ecc.value().current();
        String eccErrors = eccOn ? answer(lib.eccUncorrectedAggregate(d)) : null;
        modes.eccErrors(i, count, eccErrors);
        String health = modes.health(i, eccOn ? lib.eccUncorrectedVolatile(d) : null, pages, rows,
                lib.clocksEventReasons(d));
        return new Device(i, "ok", uuid, known.migAnswer(), known.eccAnswer(), eccErrors, migDevices, health);
    }

    /**
     * The GPU at {@code index} through its held handle, with its modes, UUID and unsupported memory repair as known;
     * null where one of its calls failed other than Not Supported (a lost GPU answers {@code GPU_IS_LOST}), for
     * {@link #readAll} to read it again as before.
     */
    private static Device readHeld(NvmlLibrary lib, int i, int count, NvmlDevice d,
                                   Map<Integer, NvmlCall<Integer>> maxMigDevices, HeldModes modes, boolean migChanged) {
        HeldModes.Known known = modes.known(i);
        if (known == null) {
            return null;
        }
        NvmlCall<Long> pages = known.pages() != null ? known.pages() : lib.retiredPagesPending(d);
        NvmlCall<NvmlSnapshot.RemappedRows> rows = known.rows() != null ? known.rows() : lib.remappedRows(d);
        if (failed(pages) || failed(rows)) {
            return null;
        }
        NvmlCall<NvmlSnapshot.Modes> mig = known.mig();
        NvmlCall<NvmlSnapshot.Modes> ecc = known.ecc();
        Integer migDevices = null;
        if (mig.ok() && mig.value().current()) {
            migDevices = migChanged || !modes.migWatched(i) ? null : modes.migDevices(i);
            if (migDevices == null) {
                modes.watchMig(lib, i, d);
                migDevices = walkMig(lib, i, d, maxMigDevices, true);
                if (migDevices == null) {
                    return null;
                }
                modes.migDevices(i, count, migDevices);
            }
        }
        boolean eccOn = ecc.ok() && ecc.value().current();
        NvmlCall<Long> volatileCount = eccOn ? lib.eccUncorrectedVolatile(d) : null;
        String eccErrors = eccOn ? modes.eccErrors(i, volatileCount) : null;
        if (eccOn && eccErrors == null) {
            NvmlCall<Long> aggregate = lib.eccUncorrectedAggregate(d);
            if (failed(aggregate)) {
                return null;
            }
            eccErrors = answer(aggregate);
            modes.eccErrors(i, count, eccErrors);
        }
        NvmlCall<Long> clocks = lib.clocksEventReasons(d);
        if (failed(volatileCount) || failed(clocks)) {
            return null;
        }
        String health = modes.health(i, volatileCount, pages, rows, clocks);
        return new Device(i, "ok", known.uuid(), known.migAnswer(), known.eccAnswer(), eccErrors, migDevices, health);
    }

    /** A call made that answered neither success nor Not Supported. */
    private static boolean failed(NvmlCall<?> call) {
        return call != null && !call.ok() && call.returnCode() != NvmlReturn.ERROR_NOT_SUPPORTED;
    }

    /**
     * How many of the GPU's MIG slots hold a device: every slot but an empty one's Not Found counts, as a snapshot's
     * walk counts. Where {@code strict}, null as soon as a slot answers another failure (for {@link #readHeld},
     * whose GPU {@link #readAll} then reads again as before).
     */
    private static Integer walkMig(NvmlLibrary lib, int i, NvmlDevice d, Map<Integer, NvmlCall<Integer>> maxMigDevices,
                                   boolean strict) {
        NvmlCall<Integer> max = maxMigDevices.get(i);
        if (max == null) {
            max = lib.maxMigDeviceCount(d);
            if (max.ok()) {
                maxMigDevices.put(i, max);
            } else if (strict && failed(max)) {
                return null;
            }
        }
        int answering = 0;
        for (int j = 0; max.ok() && j < max.value(); j++) {
            int rc = lib.migDeviceHandle(d, j).returnCode();
            if (rc != NvmlReturn.ERROR_NOT_FOUND) {
                if (strict && rc != NvmlReturn.SUCCESS) {
                    return null;
                }
                answering++;
            }
        }
        return answering;
    }

    static String problem(String unavailable, NvmlCall<?> init, NvmlCall<Integer> count) {
        if (unavailable != null) {
            return unavailable;
        }
        if (init == null || !init.ok()) {
            return "init " + answer(init);
        }
        return count == null || !count.ok() ? "count " + answer(count) : null;
    }

    /**
     * A call's answer as compared: its value ({@code current/pending} for a mode, {@code ok} for a handle, which
     * means nothing outside this process), {@code rc=N} when it failed, null when it was not made.
     */
    static String answer(NvmlCall<?> call) {
        if (call == null) {
            return null;
        }
        if (!call.ok()) {
            return "rc=" + call.returnCode();
        }
        if (call.value() == null || call.value() instanceof NvmlDevice) {
            return "ok";
        }
        if (call.value() instanceof NvmlSnapshot.RemappedRows r) {
            // Not the record's toString, which JDK 17 builds with String.format: a GPU's rows at every pulse.
            return r.corrected() + "/" + r.uncorrected() + "/" + r.pending() + "/" + r.failure();
        }
        if (call.value() instanceof NvmlSnapshot.Modes m) {
            // current/pending: one of four constants rather than a string built for each GPU's two modes each pulse.
            return m.current() ? (m.pending() ? "true/true" : "true/false") : (m.pending() ? "false/true" : "false/false");
        }
        return String.valueOf(call.value());
    }
}
