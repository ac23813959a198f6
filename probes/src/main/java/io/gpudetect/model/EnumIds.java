package io.gpudetect.model;

import java.util.Locale;

/**
 * The ids the model's enums are written with in JSON and read back from (a link's {@code nvlink}, a fabric's
 * {@code roce}, a health's {@code ok}): each constant's name in lower case. One place, so that writing and reading
 * an id cannot drift apart between enums.
 */
final class EnumIds {

    private EnumIds() {
    }

    /** {@code value}'s id: its name in lower case. */
    static String id(Enum<?> value) {
        return value.name().toLowerCase(Locale.ROOT);
    }

    /** The one of {@code values} whose id is {@code id}; {@code fallback} where none is (or {@code id} is null). */
    static <E extends Enum<E>> E fromId(E[] values, String id, E fallback) {
        for (E v : values) {
            if (id(v).equals(id)) {
                return v;
            }
        }
        return fallback;
    }
}
