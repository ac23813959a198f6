package io.gpudetect.match;

import io.gpudetect.model.GpuLinks;
import java.util.ArrayList;
import java.util.List;

/**
 * A GPU's {@code links} in a hand-written record or an inventory file, as the inventory and the record write them:
 * {@code {links: [{kind, up, version, remote, remotePciAddress, count}], fabric: {clusterUuid, cliqueId, state,
 * status}}}. Read here rather than as one {@code GpuField} value: it is a mapping of lists, which the record reader's
 * scalar and parts forms do not hold.
 */
final class LinksYaml {

    /** What the reader does with a problem: a path in the document, the node there, what was wrong. */
    interface Errors {
        InvalidInputException error(String path, YamlNode at, String problem);
    }

    private LinksYaml() {
    }

    /** The links at {@code node}; null when absent (not known, unlike an empty list). */
    static GpuLinks read(YamlNode node, String at, Errors errors) throws InvalidInputException {
        if (node == null || node.isNull()) {
            return null;
        }
        if (!node.isMapping()) {
            throw errors.error(at, node, "expected a mapping with links (a list) and fabric, found " + node.describe());
        }
        List<GpuLinks.Link> links = new ArrayList<>();
        YamlNode list = node.get("links");
        if (list != null && !list.isNull()) {
            if (!list.isSequence()) {
                throw errors.error(at + ".links", list, "expected a list of link groups, found " + list.describe());
            }
            for (int i = 0; i < list.items().size(); i++) {
                links.add(link(list.items().get(i), at + ".links[" + i + "]", errors));
            }
        }
        YamlNode f = node.get("fabric");
        GpuLinks.Fabric fabric = null;
        if (f != null && f.isMapping()) {
            Long clique = whole(f.get("cliqueId"), at + ".fabric.cliqueId", errors);
            fabric = new GpuLinks.Fabric(text(f.get("clusterUuid")), clique, text(f.get("state")), text(f.get("status")));
        }
        return new GpuLinks(links, fabric);
    }

    private static GpuLinks.Link link(YamlNode n, String at, Errors errors) throws InvalidInputException {
        if (!n.isMapping()) {
            throw errors.error(at, n, "expected a link group (kind, up, version, remote, remotePciAddress, count), found "
                    + n.describe());
        }
        String kind = text(n.get("kind"));
        GpuLinks.Kind k = kind == null ? GpuLinks.Kind.NVLINK : GpuLinks.Kind.fromId(kind.toLowerCase(java.util.Locale.ROOT));
        if (k == null) {
            throw errors.error(at + ".kind", n.get("kind"), "expected nvlink, xgmi or bridge, found " + n.get("kind").describe());
        }
        String up = text(n.get("up"));
        if (up != null && !up.equals("true") && !up.equals("false")) {
            throw errors.error(at + ".up", n.get("up"), "expected true or false, found " + n.get("up").describe());
        }
        Long version = whole(n.get("version"), at + ".version", errors);
        Long count = whole(n.get("count"), at + ".count", errors);
        String remote = text(n.get("remote"));
        return new GpuLinks.Link(k, !"false".equals(up), version == null ? null : version.intValue(),
                remote == null ? GpuLinks.Remote.UNKNOWN : GpuLinks.Remote.fromId(remote.toLowerCase(java.util.Locale.ROOT)),
                text(n.get("remotePciAddress")), count == null ? 1 : count.intValue());
    }

    private static Long whole(YamlNode node, String at, Errors errors) throws InvalidInputException {
        String t = text(node);
        if (t == null) {
            return null;
        }
        if (!t.matches("\\d{1,9}")) {
            throw errors.error(at, node, "expected a whole number of 0 or more, found " + node.describe());
        }
        return Long.parseLong(t);
    }

    private static String text(YamlNode node) {
        return node == null || !node.isScalar() || node.text().isBlank() ? null : node.text().strip();
    }
}
