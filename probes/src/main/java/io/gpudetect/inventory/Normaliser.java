package io.gpudetect.inventory;

import io.gpudetect.model.Diagnostic;
import io.gpudetect.model.Gpu;
import io.gpudetect.tables.Tables;
import java.util.List;

/**
 * Fills what the tools left out from the tables and from the other fields: vendor from the PCI id, a name for
 * cards the tool could not name, the Akash model slug, VRAM in GiB, the interface, the chip's compute capability and
 * architecture, and the mark on emulated adapters. It does so by the {@link NamingRule}s below, in their order: read
 * the list to know how a card gets its name ({@code docs/naming.md} has it as a table). Every value a rule sets names
 * its table, or {@code derived}, as its source. One per pass: the rules remember the judgements of this pass only.
 */
public final class Normaliser {

    private final Tables tables;
    private final List<NamingRule> rules;

    public Normaliser(Tables tables) {
        this.tables = tables;
        this.rules = inOrder(tables);
    }

    /** The rules in the order they run, new for one pass (docs/naming.md lists them so; NamingRulesTest checks it). */
    static List<NamingRule> inOrder(Tables tables) {
        return List.of(
                // Who made it.
                new VendorRules.FromPciVendorId(),
                new VendorRules.FromName(),
                new VendorRules.PciVendorIdFromVendor(),
                // The name it is shown and slugged by.
                new NameRules.WithoutDriverDetails(),
                new NameRules.FromAmdIds(new AmdProducts(tables)),
                new NameRules.FromTables(),
                new NameRules.EmulatedAdapter(),
                // The model: the first rule that applies decides (a model the tool printed is kept).
                new ModelRules.AmdMarketingNameOverAkash(),
                new ModelRules.FromCutName(),
                new ModelRules.FromAkashTable(),
                new ModelRules.FromListedProducts(),
                new ModelRules.FromGenericAmdName(),
                new ModelRules.FromName(),
                new ModelRules.AmdIdOverBoardName(),
                // VRAM in GiB.
                new MemoryRules.FromMiB(),
                new MemoryRules.FromAkashTable(),
                new MemoryRules.StatedInName(),
                // The interface, only where something says it.
                new InterfaceRules.FromAkashTable(),
                new InterfaceRules.SharedMemoryIsIntegrated(),
                new InterfaceRules.StatedInName(),
                new InterfaceRules.StatedInPciIds(),
                new InterfaceRules.OamOnlyModel(),
                // The chip: compute capability, then architecture.
                new ChipRules.ComputeCapabilityFromChip(),
                new ChipRules.ComputeCapabilityByName(),
                new ChipRules.Gb10ByName(),
                new ChipRules.RtxBlackwell(),
                new ChipRules.ArchitectureFromComputeCapability(),
                new ChipRules.ArchitectureFromChip());
    }

    /** Normalises one GPU; what a person should know about a judgement made here goes to {@code diagnostics}. */
    public Gpu normalise(Gpu gpu, List<Diagnostic> diagnostics) {
        Card card = new Card(gpu, tables, diagnostics);
        // An indexed loop, as in the rest of the detection core (docs/performance.md, "detection core without streams").
        for (int i = 0; i < rules.size(); i++) {
            NamingRule rule = rules.get(i);
            if (rule.appliesTo(card)) {
                rule.decide(card);
            }
        }
        return card.build();
    }
}
