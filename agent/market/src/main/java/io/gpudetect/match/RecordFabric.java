package io.gpudetect.match;

import io.gpudetect.record.FabricSpec;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * A hand-written record's (or an inventory document's) {@code fabric}, read as far as matching needs it: each
 * device's PCI address and its ports' kind, state and rate. {@code kinds} and {@code maxRateGbps} are derived
 * again from the ports, as the agent derives them.
 */
final class RecordFabric {

    /** Makes the error a record reader throws, with the file and line of {@code at}. */
    interface Errors {
        InvalidInputException error(String path, YamlNode at, String problem);
    }

    private RecordFabric() {
    }

    /** The fabric under {@code node}; null when there is none (not known). */
    static FabricSpec read(YamlNode node, String at, Errors errors) throws InvalidInputException {
        if (node == null || node.isNull()) {
            return null;
        }
        if (!node.isMapping()) {
            throw errors.error(at, node, "expected the node's fabric (a mapping with devices), found " + node.describe());
        }
        List<FabricSpec.Device> devices = new ArrayList<>();
        Set<String> kinds = new LinkedHashSet<>();
        Double max = null;
        YamlNode list = node.get("devices");
        if (list != null && !list.isNull()) {
            if (!list.isSequence()) {
                throw errors.error(at + ".devices", list, "expected a list of RDMA devices, found " + list.describe());
            }
            for (int i = 0; i < list.items().size(); i++) {
                YamlNode d = list.items().get(i);
                String path = at + ".devices[" + i + "]";
                if (!d.isMapping()) {
                    throw errors.error(path, d, "expected an RDMA device (name, pciAddress, ports), found " + d.describe());
                }
                List<FabricSpec.Port> ports = new ArrayList<>();
                YamlNode portList = d.get("ports");
                if (portList != null && portList.isSequence()) {
                    for (int j = 0; j < portList.items().size(); j++) {
                        YamlNode p = portList.items().get(j);
                        String portPath = path + ".ports[" + j + "]";
                        Double rate = number(p.get("rateGbps"), portPath + ".rateGbps", errors);
                        FabricSpec.Port port = new FabricSpec.Port(null, text(p.get("kind")), text(p.get("state")), rate,
                                text(p.get("rate")));
                        ports.add(port);
                        String address = text(d.get("pciAddress"));
                        if (address != null && "active".equals(port.state()) && port.kind() != null) {
                            kinds.add(port.kind());
                            if (rate != null && (max == null || rate > max)) {
                                max = rate;
                            }
                        }
                    }
                }
                devices.add(new FabricSpec.Device(text(d.get("name")), text(d.get("pciAddress")), null, null, null, ports));
            }
        }
        return new FabricSpec(List.copyOf(kinds), max, null, devices);
    }

    private static Double number(YamlNode node, String path, Errors errors) throws InvalidInputException {
        String t = text(node);
        if (t == null) {
            return null;
        }
        try {
            double v = Double.parseDouble(t);
            if (v >= 0 && !Double.isInfinite(v)) {
                return v;
            }
        } catch (NumberFormatException e) {
            // said below
        }
        throw errors.error(path, node, "expected a rate in Gb/s such as 400, found " + node.describe());
    }

    private static String text(YamlNode node) {
        return node == null || !node.isScalar() || node.text().isBlank() ? null : node.text().strip();
    }
}
