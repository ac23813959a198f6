package io.gpudetect.probe.amd;

import io.gpudetect.model.Diagnostic;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The link type between each pair of AMD GPUs, as {@code amd-smi topology} or {@code rocm-smi --showtopo} print it:
 * one row per GPU, each peer's cell {@code XGMI}, {@code PCIE} or not known ({@code N/A}, {@code UNKNOWN}). Rows and
 * peers are named by PCI address where the tool printed one ({@code amd-smi}'s tables, rocm-smi's JSON with each
 * card's {@code PCI Bus}), else by the tool's GPU index ({@code byAddress} false), which {@link AmdTopoLinks} places
 * on the node's AMD GPUs.
 *
 * @param byAddress whether the keys are PCI addresses ({@code 0000:0c:00.0}, as {@link io.gpudetect.model.PciAddress}
 *                  writes them) rather than GPU indexes ({@code 0}, {@code 1}, ...)
 * @param rows      each GPU's peers and the link type to each, in the order printed; the GPU itself left out
 * @param numaNodes each GPU's NUMA node as the tool printed it, by the same keys ({@code -1}: no NUMA), where it did
 */
public record AmdTopology(boolean byAddress, Map<String, Map<String, Cell>> rows, Map<String, Integer> numaNodes,
                          List<Diagnostic> diagnostics) {

    public AmdTopology {
        rows = java.util.Collections.unmodifiableMap(new LinkedHashMap<>(rows));
        numaNodes = Map.copyOf(numaNodes);
        diagnostics = List.copyOf(diagnostics);
    }

    /** A table without NUMA nodes (every form but rocm-smi's text, whose "Numa Nodes" block gives them). */
    public AmdTopology(boolean byAddress, Map<String, Map<String, Cell>> rows, List<Diagnostic> diagnostics) {
        this(byAddress, rows, Map.of(), diagnostics);
    }

    /** What joins a GPU to a peer. */
    public enum Cell {
        /** Infinity Fabric (XGMI): the two are in one hive. */
        XGMI,
        /** PCIe only. */
        PCIE,
        /** The tool could not tell ({@code N/A}, {@code UNKNOWN}). */
        UNKNOWN;

        /** A printed cell as read, or null for anything that is not a link type. */
        static Cell of(String text) {
            return switch (text.strip().toUpperCase(java.util.Locale.ROOT)) {
                case "XGMI" -> XGMI;
                case "PCIE" -> PCIE;
                case "N/A", "UNKNOWN" -> UNKNOWN;
                default -> null;
            };
        }
    }

    static AmdTopology none(List<Diagnostic> diagnostics) {
        return new AmdTopology(false, Map.of(), diagnostics);
    }
}
