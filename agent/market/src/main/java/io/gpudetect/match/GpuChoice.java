package io.gpudetect.match;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.gpudetect.model.Vendor;
import java.util.ArrayList;
import java.util.List;

/**
 * One acceptable kind of GPU, as one entry of an SDL's {@code attributes.vendor.<vendor>} list or one
 * {@code --gpu} request. Null fields do not filter.
 *
 * @param vendor       who made it
 * @param model        Akash model slug, compared exactly as the provider does ({@code H100} is not {@code h100});
 *                     null for any model of the vendor; empty for an SDL entry without a model, which no card has
 * @param ramGi        VRAM in Gi as Akash counts it (the card's marketed size)
 * @param ramAtLeast   false: the card's size must equal {@code ramGi} (Akash's rule); true: at least it ({@code vram>=})
 * @param interfaceType {@code pcie} or {@code sxm} ({@code sxm} covers SXM2 to SXM5)
 * @param migProfile   a MIG slice profile such as {@code 1g.10gb}: units are slices of that profile, not whole GPUs
 * @param floor        what the GPU's driver stack and slot must reach ({@code --gpu} only: an SDL has no such keys)
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record GpuChoice(Vendor vendor, String model, Integer ramGi, boolean ramAtLeast, String interfaceType,
                        String migProfile, GpuFloor floor) {

    public GpuChoice {
        floor = floor == null || floor.isNone() ? null : floor;
    }

    /** A choice that asks nothing of the driver stack or slot: every SDL entry. */
    public GpuChoice(Vendor vendor, String model, Integer ramGi, boolean ramAtLeast, String interfaceType,
                     String migProfile) {
        this(vendor, model, ramGi, ramAtLeast, interfaceType, migProfile, null);
    }

    /**
     * {@code nvidia a100/80Gi/sxm}, {@code nvidia *} for any model, {@code nvidia (no model)} for an entry without
     * one; what a person reads in the output.
     */
    public String describe() {
        List<String> parts = new ArrayList<>();
        parts.add(model == null ? "*" : model.isEmpty() ? "(no model)" : model);
        if (ramGi != null) {
            parts.add((ramAtLeast ? ">=" : "") + ramGi + "Gi");
        }
        if (interfaceType != null) {
            parts.add(interfaceType);
        }
        if (migProfile != null) {
            parts.add("mig-" + migProfile);
        }
        if (floor != null) {
            parts.add(floor.describe());
        }
        return vendor.id() + " " + String.join("/", parts);
    }
}
