package io.gpudetect.testing;

import io.gpudetect.labels.GpuDetectProfile;
import io.gpudetect.labels.LabelProfiles;
import io.gpudetect.labels.NvidiaProfile;
import java.util.function.Predicate;

/** Label profiles as the agent parses them, with the defaults the agent starts with unless told otherwise. */
public final class Profiles {

    /** The rule the agent withdraws owned keys by, with the default prefix ({@link LabelProfiles#mayRemove}). */
    public static final Predicate<String> MAY_REMOVE = of(LabelProfiles.DEFAULT_SELECTION)::mayRemove;

    private Profiles() {
    }

    /** {@code selection} with our own profile under {@code gpu-detect.io} and GFD's default {@code nvidia} settings. */
    public static LabelProfiles of(String selection) {
        return of(selection, GpuDetectProfile.PREFIX);
    }

    /** {@code selection} with our own profile under {@code prefix} and GFD's default {@code nvidia} settings. */
    public static LabelProfiles of(String selection, String prefix) {
        return LabelProfiles.parse(selection, prefix, NvidiaProfile.Settings.DEFAULT);
    }
}
