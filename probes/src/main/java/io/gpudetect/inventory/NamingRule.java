package io.gpudetect.inventory;

/**
 * One step of how a card gets its name: when it applies ({@link #appliesTo}), and what it then decides
 * ({@link #decide}), writing into the card's {@code sources} the evidence it went by (a table's name, or
 * {@code derived} for what follows from the other fields). Each rule's Javadoc says all three. {@link Normaliser}
 * runs the rules in one fixed order, each seeing the card as the rules before it left it; {@code docs/naming.md}
 * lists them in that order as a table.
 *
 * <p>A rule decides only fields still open (no tool gave them, no rule before decided them), so that the first rule
 * that applies to a field wins, as a GFD labeler list or NFD's label sources by priority. Where a rule applies but
 * finds nothing to decide, its Javadoc says whether it leaves the field unknown (closed: a name listing several
 * products has no model, and no later rule guesses one) or open for the next rule. A rule holds no state beyond one
 * pass's memory of judgements already made (eight cards of one kind are judged, and told of, once).
 */
sealed interface NamingRule permits
        VendorRules.FromPciVendorId, VendorRules.FromName, VendorRules.PciVendorIdFromVendor,
        NameRules.WithoutDriverDetails, NameRules.FromAmdIds, NameRules.FromTables, NameRules.EmulatedAdapter,
        ModelRules.AmdMarketingNameOverAkash, ModelRules.FromCutName, ModelRules.FromAkashTable,
        ModelRules.FromListedProducts, ModelRules.FromGenericAmdName, ModelRules.FromName, ModelRules.AmdIdOverBoardName,
        MemoryRules.FromMiB, MemoryRules.FromAkashTable, MemoryRules.StatedInName,
        InterfaceRules.FromAkashTable, InterfaceRules.SharedMemoryIsIntegrated, InterfaceRules.StatedInName,
        InterfaceRules.StatedInPciIds, InterfaceRules.OamOnlyModel,
        ChipRules.ComputeCapabilityFromChip, ChipRules.ComputeCapabilityByName, ChipRules.Gb10ByName,
        ChipRules.RtxBlackwell, ChipRules.ArchitectureFromComputeCapability, ChipRules.ArchitectureFromChip {

    /** Whether this rule has anything to say of {@code card} as the rules before it left it. */
    boolean appliesTo(Card card);

    /** Decides this rule's fields of {@code card}, with their evidence; called only where {@link #appliesTo} holds. */
    void decide(Card card);
}
