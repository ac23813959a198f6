package io.gpudetect.k8s.health;

/**
 * Whether the agent writes DRA {@code DeviceTaintRule}s for failed and lost GPUs, and with which effect.
 * {@code None} marks a device for admins and controllers without changing scheduling (the documented way to say a
 * device is degraded); {@code NoSchedule} keeps new claims off it; {@code NoExecute} also evicts pods whose claims
 * hold it.
 */
public enum DeviceTaints {
    OFF("off"), NONE("None"), NO_SCHEDULE("NoSchedule"), NO_EXECUTE("NoExecute");

    private final String id;

    DeviceTaints(String id) {
        this.id = id;
    }

    /** The setting's text, and for all but {@code off} the taint's effect as the API spells it. */
    public String id() {
        return id;
    }

    /** The setting for its text, any case; fails with the accepted values. */
    public static DeviceTaints parse(String text) {
        for (DeviceTaints d : values()) {
            if (d.id.equalsIgnoreCase(text.strip())) {
                return d;
            }
        }
        throw new IllegalArgumentException("'" + text + "' is not one of off, None, NoSchedule, NoExecute");
    }

    @Override
    public String toString() {
        return id;
    }
}
