package io.gpudetect.model;

import com.fasterxml.jackson.annotation.JsonCreator;
import com.fasterxml.jackson.annotation.JsonValue;
import java.util.Locale;

/**
 * How a GPU is attached, in the vocabulary of Akash's GPU table and SDL: {@code pcie}, {@code sxm} (SXM2 to SXM5
 * folded into it, as Akash folds them), {@code oam}, or {@code integrated} (a processor's or chipset's GPU using
 * the host's memory).
 */
public enum GpuInterface {
    PCIE, SXM, OAM, INTEGRATED;

    @JsonValue
    public String id() {
        return name().toLowerCase(Locale.ROOT);
    }

    /**
     * The interface {@code text} names, any case, any {@code sxm*} as {@code sxm} (Akash's rule); null for null or
     * another word.
     */
    @JsonCreator
    public static GpuInterface fromId(String text) {
        if (text == null) {
            return null;
        }
        String t = text.strip().toLowerCase(Locale.ROOT);
        if (t.startsWith("sxm")) {
            return SXM;
        }
        for (GpuInterface i : values()) {
            if (i.id().equals(t)) {
                return i;
            }
        }
        return null;
    }
}
