package io.gpudetect.k8s.health;

import io.gpudetect.record.dra.NodeHandout;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Locale;
import java.util.SortedMap;
import java.util.TreeMap;

/**
 * Which DRA {@code DeviceTaintRule}s the agent wants for its node, decided purely: one per DRA device of each failed
 * or lost GPU that the record's hand-out ties to that GPU (by PCI bus id, UUID or shared counter set), with the
 * configured effect. A device no detected GPU matched ({@code handout.unmatched}) never gets one: a rule on the wrong
 * device would keep a healthy GPU from pods. The rules carry the agent's label with the node's name, so that the
 * agent lists, changes and deletes its own rules only, and a rule someone else wrote for the same device stays.
 */
public final class DeviceTaintRules {

    /** The label every rule of the agent carries, with its node's name as the value. */
    public static final String NODE_LABEL = "gpu-detect.io/node";
    /** The taint's key on the devices, as the Node taint's. */
    public static final String TAINT_KEY = HealthTaint.KEY;

    private DeviceTaintRules() {
    }

    /**
     * One rule: the device it selects and the taint it puts on it.
     *
     * @param name  the rule's object name: {@code gpu-detect-<node>-<device>-<hash>}, unique per node and device
     * @param value the taint's value: the GPU's state ({@code failed}, {@code lost})
     */
    public record Rule(String name, String driver, String pool, String device, String value, String effect) {
    }

    /** What the agent does to its rules after a pass: rules to create, and names of its rules to delete. */
    public record Decision(List<Rule> create, List<String> delete, String reason) {

        public boolean writes() {
            return !create.isEmpty() || !delete.isEmpty();
        }
    }

    /**
     * The rules wanted for {@code handout}'s GPUs in these states, by name.
     *
     * @param handout the record's hand-out; null when the DRA objects could not be read
     */
    public static SortedMap<String, Rule> wanted(String nodeName, NodeHandout handout, List<GpuHealthState> gpus,
                                                 DeviceTaints effect) {
        SortedMap<String, Rule> out = new TreeMap<>();
        if (handout == null || effect == DeviceTaints.OFF) {
            return out;
        }
        for (NodeHandout.GpuHandout h : handout.gpus()) {
            GpuHealthState state = gpus.stream().filter(g -> g.sameGpu(h.pciAddress(), h.uuid())).findFirst().orElse(null);
            if (state == null || !state.state().unusable() || h.pciAddress() == null && h.uuid() == null) {
                continue;
            }
            for (NodeHandout.DraDeviceRef d : h.dra()) {
                if (d.matchedBy() == null) {
                    continue;
                }
                Rule r = new Rule(name(nodeName, d), d.driver(), d.pool(), d.device(), state.state().id(), effect.id());
                out.put(r.name(), r);
            }
        }
        return out;
    }

    /**
     * The change from the agent's rules as held to the wanted ones: a wanted rule missing, or held with another
     * device, value or effect, is (re)created; a held rule not wanted is deleted.
     *
     * @param held     the agent's rules on the cluster (those with its node label), by name
     * @param complete an incomplete pass changes nothing, as for labels
     * @param handout  null (the DRA objects could not be read): nothing changes
     */
    public static Decision decide(String nodeName, NodeHandout handout, List<GpuHealthState> gpus, DeviceTaints effect,
                                  SortedMap<String, Rule> held, boolean complete) {
        if (effect == DeviceTaints.OFF) {
            return new Decision(List.of(), List.of(), "device taints off");
        }
        if (!complete || handout == null) {
            return new Decision(List.of(), List.of(), complete ? "DRA objects not read: rules kept" : "pass incomplete: rules kept");
        }
        SortedMap<String, Rule> want = wanted(nodeName, handout, gpus, effect);
        List<Rule> create = new ArrayList<>();
        List<String> delete = new ArrayList<>();
        held.forEach((name, rule) -> {
            if (!rule.equals(want.get(name))) {
                delete.add(name);
            }
        });
        want.forEach((name, rule) -> {
            if (!rule.equals(held.get(name))) {
                create.add(rule);
            }
        });
        return new Decision(create, delete, create.isEmpty() && delete.isEmpty() ? "device taint rules up to date" : null);
    }

    /**
     * A rule's name: readable (the node and the device), within the 253 characters of a DNS subdomain, and unique
     * (a hash of node, driver, pool and device, since two drivers may name a device alike).
     */
    static String name(String nodeName, NodeHandout.DraDeviceRef d) {
        String readable = ("gpu-detect-" + nodeName + "-" + d.device()).toLowerCase(Locale.ROOT)
                .replaceAll("[^a-z0-9.-]", "-");
        if (readable.length() > 200) {
            readable = readable.substring(0, 200);
        }
        return readable + "-" + hash(nodeName + "/" + d.driver() + "/" + d.pool() + "/" + d.device());
    }

    private static String hash(String s) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(s.getBytes(StandardCharsets.UTF_8));
            return HexFormat.of().formatHex(digest, 0, 5);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every Java runtime", e);
        }
    }
}
