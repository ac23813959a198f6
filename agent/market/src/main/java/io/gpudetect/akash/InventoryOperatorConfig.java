package io.gpudetect.akash;

import io.gpudetect.source.IoFailure;
import io.gpudetect.match.InvalidInputException;
import io.gpudetect.match.YamlNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

/**
 * The part of Akash's inventory operator configuration that leaves nodes out: {@code exclude.nodes}, a list of Go
 * regular expressions, each matched anywhere in the node's name ({@code Exclude.IsNodeExcluded}:
 * {@code r.MatchString(name)}, provider {@code operator/inventory/config.go} at {@code afc4dd7c}). The operator writes
 * no label on such a node and leaves it out of the inventory the provider bids from ({@code generateLabels}).
 *
 * <p>The file is the operator's {@code --config} ({@code AP_CONFIG}): the {@code config.yaml} of ConfigMap
 * {@code inventory-configmap} (Helm chart akash-inventory-operator) or {@code operator-inventory} (the provider's
 * kustomize files) in namespace {@code akash-services}. That ConfigMap as kubectl prints it is read too. The file is
 * checked as the operator's loader checks it ({@code Config.UnmarshalYAML}): no field but {@code version},
 * {@code cluster_storage} and {@code exclude}, no empty or invalid rule; {@code node_storage} is not read.
 *
 * @param origin       where the configuration was read, for messages
 * @param excludeNodes the rules as written
 * @param patterns     the same rules compiled, in the same order
 */
public record InventoryOperatorConfig(String origin, List<String> excludeNodes, List<Pattern> patterns) {

    private static final Set<String> FIELDS = Set.of("version", "cluster_storage", "exclude");

    public InventoryOperatorConfig {
        excludeNodes = List.copyOf(excludeNodes);
        patterns = List.copyOf(patterns);
    }

    public static InventoryOperatorConfig load(Path file) throws InvalidInputException {
        String text;
        try {
            text = IoFailure.readText(file);
        } catch (IOException e) {
            throw new InvalidInputException(file.toString(), null, null, IoFailure.fileReason(e));
        }
        return parse(text, file.toString());
    }

    /** The configuration in {@code text}: the operator's file, or a ConfigMap holding it under {@code data}. */
    public static InventoryOperatorConfig parse(String text, String origin) throws InvalidInputException {
        YamlNode root = YamlNode.parse(text, origin);
        if (root.isMapping() && root.get("kind") != null && "ConfigMap".equals(root.get("kind").text())) {
            YamlNode data = root.get("data");
            YamlNode config = data == null ? null : data.get("config.yaml");
            if (config == null && data != null && data.fields().size() == 1) {
                config = data.fields().values().iterator().next();
            }
            if (config == null || !config.isScalar()) {
                throw new InvalidInputException(origin, "data", root.line(), "expected the operator's configuration "
                        + "under data.config.yaml");
            }
            return parse(config.text(), origin + " (data.config.yaml)");
        }
        if (root.isNull()) {
            return new InventoryOperatorConfig(origin, List.of(), List.of());
        }
        if (!root.isMapping()) {
            throw new InvalidInputException(origin, null, root.line(), "expected the inventory operator's configuration "
                    + "(version, cluster_storage, exclude), found " + root.describe());
        }
        for (Map.Entry<String, YamlNode> field : root.fields().entrySet()) {
            if (!FIELDS.contains(field.getKey())) {
                throw new InvalidInputException(origin, field.getKey(), field.getValue().line(), "unexpected field; the "
                        + "operator refuses the file (\"config: unexpected field " + field.getKey() + "\"); expected "
                        + "version, cluster_storage and exclude");
            }
        }
        YamlNode exclude = root.get("exclude");
        YamlNode nodes = exclude == null || !exclude.isMapping() ? null : exclude.get("nodes");
        if (nodes == null || nodes.isNull()) {
            return new InventoryOperatorConfig(origin, List.of(), List.of());
        }
        if (!nodes.isSequence()) {
            throw new InvalidInputException(origin, "exclude.nodes", nodes.line(), "expected a list of regular "
                    + "expressions, found " + nodes.describe());
        }
        List<String> rules = new ArrayList<>();
        List<Pattern> patterns = new ArrayList<>();
        for (int i = 0; i < nodes.items().size(); i++) {
            YamlNode rule = nodes.items().get(i);
            String path = "exclude.nodes[" + i + "]";
            if (!rule.isScalar() || rule.text().isEmpty()) {
                throw new InvalidInputException(origin, path, rule.line(), "empty regexp filters are not allowed");
            }
            try {
                // Go's RE2 names a group (?P<name>...); Java writes (?<name>...).
                patterns.add(Pattern.compile(rule.text().replace("(?P<", "(?<")));
            } catch (PatternSyntaxException e) {
                throw new InvalidInputException(origin, path, rule.line(), "unable to compile exclude \"" + rule.text()
                        + "\" into regexp: " + e.getDescription());
            }
            rules.add(rule.text());
        }
        return new InventoryOperatorConfig(origin, rules, patterns);
    }

    /** The first rule that matches anywhere in {@code node}'s name, as written; null when none does. */
    public String exclusionRule(String node) {
        for (int i = 0; i < patterns.size(); i++) {
            if (patterns.get(i).matcher(node).find()) {
                return excludeNodes.get(i);
            }
        }
        return null;
    }
}
