package io.gpudetect.render;

import io.gpudetect.inventory.Inventory;
import io.gpudetect.model.Gpu;
import io.gpudetect.model.Health;
import io.gpudetect.model.Partitioning;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** The inventory as a table for a person at a terminal, with a one-line summary under it. */
public final class InventoryTable {

    private static final String[] HEADER = {"PCI ADDRESS", "VENDOR", "MODEL", "NAME", "VRAM", "IFACE", "DRIVER", "MIG", "HEALTH"};

    private InventoryTable() {
    }

    public static String render(Inventory inventory) {
        List<String[]> rows = new ArrayList<>();
        rows.add(HEADER);
        for (Gpu g : inventory.gpus()) {
            rows.add(new String[] {
                    g.pciAddress() == null ? "-" : g.pciAddress().toString(),
                    g.vendor() == null ? "-" : g.vendor().id(),
                    dash(g.model()),
                    dash(g.name()) + (Boolean.TRUE.equals(g.emulated()) ? " (emulated)" : ""),
                    vram(g),
                    dash(g.interfaceType() == null ? null : g.interfaceType().id()),
                    dash(g.driverVersion()),
                    mig(g.partitioning()),
                    g.health() == null ? "-" : g.health().status().id()});
        }
        StringBuilder out = new StringBuilder();
        if (!inventory.gpus().isEmpty()) {
            int[] width = new int[HEADER.length];
            for (String[] row : rows) {
                for (int i = 0; i < row.length; i++) {
                    width[i] = Math.max(width[i], row[i].length());
                }
            }
            for (String[] row : rows) {
                StringBuilder line = new StringBuilder();
                for (int i = 0; i < row.length; i++) {
                    line.append(i == row.length - 1 ? row[i] : pad(row[i], width[i] + 2));
                }
                out.append(line.toString().stripTrailing()).append('\n');
            }
            out.append('\n');
        }
        out.append(summary(inventory)).append('\n');
        String fabric = fabric(inventory.fabric());
        if (fabric != null) {
            out.append(fabric).append('\n');
        }
        return out.toString();
    }

    /**
     * {@code RDMA fabric: mlx5_0 infiniband 400 Gb/s, mlx5_1 roce down; GPUDirect RDMA can-work}: each device's
     * ports, then the verdict; null when the fabric is not known or has no device (nothing to say that a table needs).
     */
    static String fabric(io.gpudetect.model.Fabric f) {
        if (f == null || f.devices().isEmpty()) {
            return null;
        }
        List<String> devices = new ArrayList<>();
        for (io.gpudetect.model.Fabric.RdmaDevice d : f.devices()) {
            List<String> ports = new ArrayList<>();
            for (io.gpudetect.model.Fabric.RdmaPort p : d.ports()) {
                String kind = p.kind() == null ? "?" : p.kind().id();
                ports.add(kind + (p.active() ? p.rateGbps() == null ? "" : " " + rate(p.rateGbps()) + " Gb/s"
                        : " " + (p.state() == null ? "state unknown" : p.state())));
            }
            devices.add(d.name() + (d.pciAddress() == null ? " (software)" : "") + " "
                    + (ports.isEmpty() ? "no port" : String.join(" + ", ports)));
        }
        return "RDMA fabric: " + String.join(", ", devices) + (f.gpuDirectRdma() == null || f.gpuDirectRdma().verdict() == null
                ? "" : "; GPUDirect RDMA " + f.gpuDirectRdma().verdict().id());
    }

    private static String rate(double gbps) {
        return gbps == Math.rint(gbps) ? String.valueOf((long) gbps) : String.valueOf(gbps);
    }

    /** {@code 3 GPUs: 2 x nvidia rtx4090, 1 x intel uhd630} or a plain sentence when there are none. */
    public static String summary(Inventory inventory) {
        List<Gpu> real = inventory.realGpus();
        if (inventory.failure() != null) {
            return "No verdict on " + inventory.source() + ": " + inventory.failure() + ".";
        }
        // A source that failed did not answer: "no GPUs" from it would read as a verdict it never gave.
        List<String> answeredBy = new ArrayList<>();
        List<String> failed = new ArrayList<>();
        for (Inventory.ProbeSummary p : inventory.probes()) {
            switch (p.outcome()) {
                case OK, PARTIAL -> answeredBy.add(p.name());
                case FAILED -> failed.add(p.name());
                default -> { }
            }
        }
        String answered = (answeredBy.isEmpty() ? "none" : String.join(", ", answeredBy))
                + (failed.isEmpty() ? "" : "; failed: " + String.join(", ", failed));
        if (real.isEmpty()) {
            return "No GPUs found on " + inventory.source() + " (sources that answered: " + answered + ").";
        }
        Map<String, Integer> perModel = new TreeMap<>();
        for (Gpu g : real) {
            perModel.merge((g.vendor() == null ? "other" : g.vendor().id()) + " " + dash(g.model()), 1, Integer::sum);
        }
        StringBuilder s = new StringBuilder().append(real.size()).append(real.size() == 1 ? " GPU: " : " GPUs: ");
        List<String> parts = new ArrayList<>();
        perModel.forEach((model, n) -> parts.add(n + " x " + model));
        s.append(String.join(", ", parts)).append(" (from ").append(answered).append(')');
        if (!inventory.complete()) {
            s.append("; incomplete: ").append(String.join("; ", inventory.gaps()));
        }
        return s.toString();
    }

    private static String vram(Gpu g) {
        if (Boolean.TRUE.equals(g.sharedMemory())) {
            return "shared";
        }
        if (g.memoryMiB() != null) {
            return g.memoryMiB() + " MiB" + (g.memoryGi() == null ? "" : " (" + g.memoryGi() + "Gi)");
        }
        return g.memoryGi() == null ? "-" : g.memoryGi() + "Gi";
    }

    private static String mig(Partitioning p) {
        if (p == null || p.enabled() == null) {
            return "-";
        }
        if (!p.enabled()) {
            return Boolean.TRUE.equals(p.pendingEnabled()) ? "off (on after reset)" : "off";
        }
        return "on, " + p.instances().size() + (p.instances().size() == 1 ? " instance" : " instances");
    }

    private static String dash(String s) {
        return s == null || s.isBlank() ? "-" : s;
    }

    private static String pad(String s, int width) {
        return s.length() >= width ? s : s + " ".repeat(width - s.length());
    }

}
