package io.gpudetect.k8s;

import io.gpudetect.labels.AkashProfile;
import io.gpudetect.labels.NvidiaProfile;
import java.util.Collections;
import java.util.Locale;
import java.util.Map;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.function.Predicate;

/**
 * Who owns this node's Akash keys: Akash's inventory operator, or the agent.
 *
 * <p>The operator ({@code operator/inventory/node-discovery.go} in akash-network/provider) treats every key
 * that starts with {@code akash.network}, and {@code nvidia.com/gpu.present}, as its own
 * ({@code isLabelManaged}): each time its own set changes it replaces the node's labels with that set plus
 * everyone else's keys, deleting any such key it did not generate. A second writer there starts a write
 * war, so where the operator runs the agent adds, changes and removes none of those keys, whatever profiles
 * are on. Keys the agent wrote before the operator arrived are not removed by the agent either: they are
 * dropped from its owned-labels annotation and left to the operator, which deletes what it does not
 * generate.
 *
 * <p>With {@link OperatorSetting#AUTO} the operator is recognised by the node label {@code akash.network=true}
 * it writes on every node it manages, when the agent did not write that label itself (its owned-labels
 * annotation does not list it). An operator installed after the agent keeps the agent's identical
 * {@code akash.network=true}, so it is also recognised when an operator key the agent wrote is gone from a
 * node carrying that label: the operator deletes every such key it did not generate. A node the operator
 * leaves out (not ready, cordoned, excluded in its configuration) carries none of its labels, and
 * {@code auto} cannot tell it from a node without an operator; {@link OperatorSetting#PRESENT} covers it.
 */
public sealed interface AkashCoexistence {

    /** The label the operator writes on every node it manages. */
    String OPERATOR_MARKER = AkashProfile.PREFIX;

    /** How the agent learns whether the operator runs: {@code --akash-operator auto|present|absent}. */
    enum OperatorSetting {
        /** Decide per node from its labels (the default). */
        AUTO,
        /** The operator runs: never touch its keys. */
        PRESENT,
        /** No operator: the {@code akash} profile's keys are the agent's like any other. */
        ABSENT;

        /**
         * @throws IllegalArgumentException naming the accepted values
         */
        public static OperatorSetting parse(String text) {
            String t = text == null ? "" : text.strip().toLowerCase(Locale.ROOT);
            for (OperatorSetting s : values()) {
                if (s.id().equals(t)) {
                    return s;
                }
            }
            throw new IllegalArgumentException("akash-operator: '" + text + "' is not one of auto, present, absent");
        }

        public String id() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** The labels the agent may set, from all that its profiles produced. */
    SortedMap<String, String> desired(SortedMap<String, String> produced);

    /** Which owned keys the agent may withdraw, given the rule without the operator ({@code base}). */
    Predicate<String> mayRemove(Predicate<String> base);

    /** The record's {@code status.akashLabels}: who owns the keys when it is not the agent, else null. */
    String status();

    /** The operator owns the keys; {@code evidence} says how the agent knows, for the record's status. */
    record OperatorOwns(String evidence) implements AkashCoexistence {

        @Override
        public SortedMap<String, String> desired(SortedMap<String, String> produced) {
            SortedMap<String, String> mine = new TreeMap<>(produced);
            mine.keySet().removeIf(AkashCoexistence::isOperatorKey);
            return Collections.unmodifiableSortedMap(mine);
        }

        @Override
        public Predicate<String> mayRemove(Predicate<String> base) {
            return key -> base.test(key) && !isOperatorKey(key);
        }

        @Override
        public String status() {
            return "owned by Akash inventory operator (" + evidence + ")";
        }
    }

    /** No operator on this node: the agent writes and withdraws the {@code akash} profile's keys. */
    record AgentOwns() implements AkashCoexistence {

        @Override
        public SortedMap<String, String> desired(SortedMap<String, String> produced) {
            return produced;
        }

        @Override
        public Predicate<String> mayRemove(Predicate<String> base) {
            return base;
        }

        @Override
        public String status() {
            return null;
        }
    }

    /**
     * @param labels      the node's labels
     * @param annotations the node's annotations, where {@link OwnedLabels#ANNOTATION} lists the keys the agent wrote
     */
    static AkashCoexistence decide(Map<String, String> labels, Map<String, String> annotations, OperatorSetting setting) {
        if (setting == OperatorSetting.PRESENT) {
            return new OperatorOwns("setting akash-operator=present");
        }
        Map<String, String> current = labels == null ? Map.of() : labels;
        if (setting == OperatorSetting.ABSENT || !"true".equals(current.get(OPERATOR_MARKER))) {
            return new AgentOwns();
        }
        SortedSet<String> owned = OwnedLabels.parse(annotations);
        if (!owned.contains(OPERATOR_MARKER)) {
            return new OperatorOwns("node label akash.network=true");
        }
        // The marker is ours; the operator is there all the same if it deleted a key of ours, as it deletes
        // every key of its namespace that it did not generate.
        for (String key : owned) {
            if (isOperatorKey(key) && !current.containsKey(key)) {
                return new OperatorOwns("node label akash.network=true; " + key + " removed by someone else");
            }
        }
        return new AgentOwns();
    }

    /** Whether the operator treats {@code key} as its own: its {@code isLabelManaged}, to the letter. */
    static boolean isOperatorKey(String key) {
        return key.startsWith(OPERATOR_MARKER) || key.equals(NvidiaProfile.PREFIX + "/gpu.present");
    }
}
