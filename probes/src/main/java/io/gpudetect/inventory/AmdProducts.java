package io.gpudetect.inventory;

import io.gpudetect.model.Diagnostic;
import io.gpudetect.model.Gpu;
import io.gpudetect.tables.AmdComputeUnits;
import io.gpudetect.tables.AmdProductMemory;
import io.gpudetect.tables.MemorySize;
import io.gpudetect.tables.ModelSlug;
import io.gpudetect.tables.Tables;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Objects;

/**
 * AMD's products by PCI id, as {@link NameRules.FromAmdIds} judges them: libdrm's table (amdgpu.ids) by device id
 * and revision, narrowed by the products the tool named, the VRAM and the compute units. One per pass: it remembers
 * each kind of card it judged, so that eight cards of one kind are judged, and told of, once.
 */
final class AmdProducts {

    private final Tables tables;
    /** One judgement per kind of AMD card in this pass. */
    private final java.util.Map<AmdKind, AmdJudgement> amdJudgements = new java.util.HashMap<>();
    /** Kinds of AMD card whose CU-decided model was told of in this pass: eight cards, one note. */
    private final java.util.Set<AmdKind> toldKinds = new java.util.HashSet<>();

    AmdProducts(Tables tables) {
        this.tables = tables;
    }

    /**
     * The key of a judgement: one kind of card, as the judgement reads it. It writes its own equals and hashCode: a
     * record's generated ones are bootstrapped through java.lang.runtime.ObjectMethods at their first call, which
     * spins some thirty method-handle classes that no class-data archive keeps, at every start that names an AMD
     * card (docs/performance.md, row "normaliser's keys without ObjectMethods").
     */
    private record AmdKind(String deviceId, String pciRevision, Integer memoryGi, String architecture,
                           Integer computeUnits, List<String> named) {
        AmdKind {
            named = List.copyOf(named);
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof AmdKind k && Objects.equals(deviceId, k.deviceId) && Objects.equals(pciRevision, k.pciRevision)
                    && Objects.equals(memoryGi, k.memoryGi) && Objects.equals(architecture, k.architecture)
                    && Objects.equals(computeUnits, k.computeUnits) && named.equals(k.named);
        }

        @Override
        public int hashCode() {
            int h = Objects.hashCode(deviceId);
            h = h * 31 + Objects.hashCode(pciRevision);
            h = h * 31 + Objects.hashCode(memoryGi);
            h = h * 31 + Objects.hashCode(architecture);
            h = h * 31 + Objects.hashCode(computeUnits);
            return h * 31 + named.hashCode();
        }
    }

    /** An AMD product as far as the ids, revision and VRAM tell it: a name, or a chip family as the model. */
    record AmdProduct(String name, String model) {
    }

    /**
     * AMD's product from libdrm's table: by device id and revision; when that leaves several (no revision
     * printed, or one entry naming several), by the VRAM each is sold with; when still several, the chip
     * family from pci.ids ({@code vega20}) is the model and the candidates go into a diagnostic: a guess
     * between them would pay a provider for the wrong card, and their names run together are no model.
     */
    AmdProduct judge(Gpu gpu, String architecture, List<String> named, List<Diagnostic> diagnostics) {
        String deviceId = gpu.pciDeviceId();
        // An iGPU's memory is the host's, no size AMD sells a product with.
        Integer gi = Boolean.TRUE.equals(gpu.sharedMemory()) ? null : gpu.memoryGi() != null ? gpu.memoryGi()
                : gpu.memoryMiB() == null ? null : MemorySize.gi(gpu.memoryMiB(), null);
        // Eight cards of one kind are one judgement: names are slugged and tables read once per kind, not per card.
        AmdKind kind = new AmdKind(deviceId, gpu.pciRevision(), gi, architecture, gpu.computeUnits(), named);
        AmdJudgement judgement = amdJudgements.get(kind);
        if (judgement == null) {
            judgement = judgeAmd(deviceId, gpu.pciRevision(), gi, architecture, gpu.computeUnits(), named);
            amdJudgements.put(kind, judgement);
        }
        if (judgement.product() != null) {
            if (judgement.product().name() == null && judgement.product().model() != null && toldKinds.add(kind)) {
                // Decided by what the name does not say (the compute units): told once per kind of card.
                String probe = gpu.sources() == null ? null : gpu.sources().get("pciDeviceId");
                diagnostics.add(Diagnostic.info(probe, "amdgpu.ids", "1002:" + deviceId.toLowerCase(Locale.ROOT).replaceFirst("^0x", "")
                        + " is sold as " + String.join(", ", judgement.candidates()) + "; " + (gi == null ? "" : gi + " GB and ")
                        + gpu.computeUnits() + " compute units leave only " + String.join(", ", judgement.fitting())
                        + ": model " + judgement.product().model()));
            }
            return judgement.product();
        }
        List<String> candidates = judgement.candidates();
        List<String> fitting = judgement.fitting();
        String familyModel = judgement.familyModel();
        String lower = deviceId.toLowerCase(Locale.ROOT);
        String id = "1002:" + (lower.startsWith("0x") ? lower.substring(2) : lower);
        // Told under the probe that printed the id: the judgement is about what that probe saw.
        String probe = gpu.sources() == null ? null : gpu.sources().get("pciDeviceId");
        diagnostics.add(Diagnostic.warning(probe, "amdgpu.ids", null, id
                + (gpu.pciRevision() == null ? " (no revision printed)" : " revision " + gpu.pciRevision())
                + " is sold as " + String.join(", ", candidates)
                + (gi == null ? "; no VRAM size to tell them apart" : fitting.isEmpty()
                        ? "; none is sold with " + gi + " GB"
                        : "; " + gi + " GB of VRAM leaves " + String.join(", ", fitting))
                + (gpu.computeUnits() == null || fitting.isEmpty() ? "" : " (" + gpu.computeUnits() + " compute units)")
                + (familyModel == null ? ": model left unknown" : ": model is the chip family '" + familyModel + "'")
                + (gpu.pciAddress() == null ? "" : " (GPU at " + gpu.pciAddress() + ")")));
        return new AmdProduct(null, familyModel);
    }

    /**
     * What the tables say of one kind of AMD card: its product when they name one ({@code product}), else the
     * candidates, those its VRAM leaves, and the chip family's model.
     */
    private record AmdJudgement(AmdProduct product, List<String> candidates, List<String> fitting, String familyModel) {
    }

    private AmdJudgement judgeAmd(String deviceId, String revision, Integer gi, String architecture, Integer computeUnits,
                                  List<String> named) {
        List<String> candidates = tables.amdGpuIds().candidates(deviceId, revision);
        if (!named.isEmpty()) {
            // The tool named the products ("AMD Instinct MI60 / MI50", libdrm's name for 66A1 revision 02): of the
            // id's products, those it named, where it named some of them.
            java.util.Set<String> namedSlugs = new java.util.HashSet<>();
            for (String n : named) {
                namedSlugs.add(ModelSlug.fromName(n));
            }
            List<String> kept = new ArrayList<>();
            for (String c : candidates) {
                if (namedSlugs.contains(ModelSlug.fromName(c))) {
                    kept.add(c);
                }
            }
            if (!kept.isEmpty()) {
                candidates = kept;
            }
        }
        if (candidates.isEmpty()) {
            return new AmdJudgement(new AmdProduct(null, null), candidates, List.of(), null);
        }
        if (candidates.size() == 1) {
            return new AmdJudgement(new AmdProduct(candidates.get(0), null), candidates, candidates, null);
        }
        // A loop, as in the rest of the detection core (docs/performance.md, "detection core without streams").
        List<String> fitting = new ArrayList<>();
        for (String candidate : candidates) {
            if (gi == null || AmdProductMemory.maySell(ModelSlug.fromName(candidate), gi)) {
                fitting.add(candidate);
            }
        }
        if (fitting.size() == 1) {
            return new AmdJudgement(new AmdProduct(fitting.get(0), ModelSlug.fromName(fitting.get(0))), candidates,
                    fitting, null);
        }
        if (computeUnits != null && fitting.size() > 1) {
            // The compute units tell apart what the memory cannot: 66A1 with 32 GB is an MI50 (60) or an MI60 (64).
            // The model only: the name stays as the tool printed it, which AMD's own labeller publishes.
            List<String> byUnits = new ArrayList<>();
            for (String candidate : fitting) {
                if (AmdComputeUnits.mayHave(ModelSlug.fromName(candidate), computeUnits)) {
                    byUnits.add(candidate);
                }
            }
            if (byUnits.size() == 1) {
                return new AmdJudgement(new AmdProduct(null, ModelSlug.fromName(byUnits.get(0))), candidates, byUnits, null);
            }
            if (!byUnits.isEmpty()) {
                fitting = byUnits;
            }
        }
        String family = Chips.chipFamilyOfGfx(architecture);
        if (family == null) {
            family = tables.pciIds().device("1002", deviceId).map(Chips::chipFamily).orElse(null);
        }
        return new AmdJudgement(null, candidates, fitting, family == null ? null : ModelSlug.fromName(family));
    }

}
