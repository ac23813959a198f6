package io.gpudetect.inventory;

import io.gpudetect.model.Diagnostic;
import io.gpudetect.model.Gpu;
import io.gpudetect.model.GpuInterface;
import io.gpudetect.model.Vendor;
import io.gpudetect.tables.AkashGpus;
import io.gpudetect.tables.MemorySize;
import io.gpudetect.tables.Tables;
import java.util.List;
import java.util.Optional;

/**
 * One card as the naming rules see it while {@link Normaliser} runs them: what the tools printed ({@link #input}),
 * what the rules before have made of it (vendor, name, architecture, model), and the card being built, whose
 * {@code sources} say for each field the rule's evidence (a table's name, or {@code derived}). A field is
 * <em>open</em> while no tool gave it and no rule decided it; a rule that decides a field closes it, even where
 * it leaves the value unknown (a name that lists several products has no model, and no later rule guesses one).
 * One per card and normalise call, never shared.
 */
final class Card {

    private final Gpu input;
    private final Tables tables;
    private final List<Diagnostic> diagnostics;
    private final Gpu.Builder out;

    private Vendor vendor;
    private String vendorId;
    private String name;
    private String architecture;
    /** The name a model is slugged from where it differs from the name shown (a laptop part named from pci.ids). */
    private String slugName;
    private String model;
    private boolean modelDecided;
    private boolean memoryGiDecided;
    private boolean interfaceDecided;
    private boolean computeCapabilityDecided;
    private boolean architectureDecided;
    /** Which rule decided the model, so that a rule refining it can say whose decision it refines. */
    private NamingRule modelRule;

    /** Akash's entry for the ids, looked up once per card (null: not yet). */
    private Optional<AkashGpus.Entry> akash;
    /** pci.ids' entry for the ids, looked up once per card (null: not yet). */
    private Optional<String> pciIdsEntry;

    Card(Gpu input, Tables tables, List<Diagnostic> diagnostics) {
        this.input = input;
        this.tables = tables;
        this.diagnostics = diagnostics;
        this.out = input.toBuilder("derived");
        this.vendor = input.vendor();
        this.vendorId = input.pciVendorId();
        this.name = input.name();
        this.architecture = input.architecture();
        this.model = input.model();
    }

    /** The card as the tools gave it, before any rule. */
    Gpu input() {
        return input;
    }

    Tables tables() {
        return tables;
    }

    /** Where a rule tells a person about a judgement it made. */
    List<Diagnostic> diagnostics() {
        return diagnostics;
    }

    Vendor vendor() {
        return vendor;
    }

    String vendorId() {
        return vendorId;
    }

    String deviceId() {
        return input.pciDeviceId();
    }

    String name() {
        return name;
    }

    String architecture() {
        return architecture;
    }

    String slugName() {
        return slugName;
    }

    String model() {
        return model;
    }

    NamingRule modelRule() {
        return modelRule;
    }

    /** The probe that printed {@code field}, under which a judgement about it is told. */
    String probeOf(String field) {
        return input.sources() == null ? null : input.sources().get(field);
    }

    /** The VRAM in whole GiB as the tool gave it, or rounded from MiB; null when neither is known. */
    Integer memoryGi() {
        return input.memoryGi() != null ? input.memoryGi()
                : input.memoryMiB() == null ? null : MemorySize.gi(input.memoryMiB(), null);
    }

    boolean sharedMemory() {
        return Boolean.TRUE.equals(input.sharedMemory());
    }

    /** Akash's entry for the card's vendor, device and subsystem ids. */
    Optional<AkashGpus.Entry> akash() {
        if (akash == null) {
            akash = tables.akash().lookup(vendorId, input.pciDeviceId(), input.pciSubsystemDeviceId());
        }
        return akash;
    }

    /** pci.ids' entry for the card's vendor and device ids; empty without a device id. */
    Optional<String> pciIdsEntry() {
        if (pciIdsEntry == null) {
            pciIdsEntry = input.pciDeviceId() == null ? Optional.empty() : tables.pciIds().device(vendorId, input.pciDeviceId());
        }
        return pciIdsEntry;
    }

    boolean modelOpen() {
        return model == null && !modelDecided;
    }

    boolean memoryGiOpen() {
        return input.memoryGi() == null && !memoryGiDecided;
    }

    boolean interfaceOpen() {
        return input.interfaceType() == null && !interfaceDecided;
    }

    boolean computeCapabilityOpen() {
        return input.computeCapability() == null && !computeCapabilityDecided;
    }

    /** No tool printed an architecture and no rule has derived one from the chip or compute capability. */
    boolean architectureOpen() {
        return input.architecture() == null && !architectureDecided;
    }

    void vendor(Vendor v) {
        vendor = v;
        out.vendor(v);
    }

    void vendorId(String id) {
        vendorId = id;
        out.pciVendorId(id);
        // The lookups keyed by the vendor id are made again with it (in the list, none is made before).
        akash = null;
        pciIdsEntry = null;
    }

    void name(String n, String evidence) {
        name = n;
        out.as(evidence).name(n).as("derived");
    }

    /** A name shown to people that names no product: no later rule reads it. */
    void displayName(String n) {
        out.name(n);
    }

    void slugName(String n) {
        slugName = n;
    }

    /** The architecture a name's details state (a gfx target): later rules read it, as a printed one. */
    void statedArchitecture(String a, String evidence) {
        architecture = a;
        out.as(evidence).architecture(a).as("derived");
    }

    void emulated(boolean e) {
        out.emulated(e);
    }

    /** Decides the model: {@code m} null leaves it unknown, and closed to later rules. */
    void model(NamingRule rule, String m, String evidence) {
        model = m;
        modelDecided = true;
        modelRule = rule;
        out.as(evidence).model(m).as("derived");
    }

    void memoryGi(Integer gi, String evidence) {
        memoryGiDecided = true;
        out.as(evidence).memoryGi(gi).as("derived");
    }

    void interfaceType(GpuInterface i, String evidence) {
        interfaceDecided = true;
        out.as(evidence).interfaceType(i).as("derived");
    }

    void computeCapability(String cc, String evidence) {
        computeCapabilityDecided = true;
        out.as(evidence).computeCapability(cc).as("derived");
    }

    void architecture(String a, String evidence) {
        architectureDecided = true;
        out.as(evidence).architecture(a).as("derived");
    }

    Gpu build() {
        return out.build();
    }
}
