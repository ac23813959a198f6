package io.gpudetect.match;

import com.fasterxml.jackson.annotation.JsonInclude;
import io.gpudetect.record.FabricSpec;
import java.math.BigDecimal;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What a request asks of the node's RDMA fabric, checked against its record's {@code fabric}: from {@code --gpu}
 * ({@code fabric=infiniband}, {@code fabric=roce}, {@code fabric=any}, {@code fabric>=400G}, the two together) or
 * from an Akash SDL placement's interconnect capabilities ({@code capabilities/gpu-interconnect: "true"}, with an
 * optional pin {@code capabilities/gpu-interconnect/fabric/infiniband} or {@code .../roce}).
 *
 * @param kind    the fabric an active port must carry ({@code infiniband}, {@code roce}); null for any RDMA fabric
 * @param minGbps the rate an active port (of {@code kind}, when given) must reach, in Gb/s; null for any
 * @param origin  how the request was written, for verdicts ({@code fabric>=400G},
 *                {@code capabilities/gpu-interconnect/fabric/infiniband})
 */
@JsonInclude(JsonInclude.Include.NON_NULL)
public record FabricRequest(String kind, Double minGbps, String origin) {

    /** The placement attribute an Akash SDL requires for multi-node GPU interconnect. */
    public static final String CAPABILITY = "capabilities/gpu-interconnect";
    /** The prefix of its optional fabric pin ({@code .../fabric/infiniband}, {@code .../fabric/roce}). */
    public static final String FABRIC_PIN = CAPABILITY + "/fabric/";
    /** The fabrics a request may name; {@code any} is any RDMA fabric. */
    static final List<String> KINDS = List.of("infiniband", "roce", "iwarp", "any");
    private static final Pattern RATE = Pattern.compile("(\\d{1,5}(?:\\.\\d{1,3})?)\\s*(g|gb|gbps|gb/s|gbit/s)?");

    /**
     * The fabric part of a {@code --gpu} request: {@code kind} from {@code fabric=...}, {@code rate} from
     * {@code fabric>=...}, either null when not given; null when neither is.
     *
     * @param name the option, for errors ({@code --gpu[0]})
     */
    static FabricRequest parse(String kind, String rate, String name) throws InvalidInputException {
        if (kind == null && rate == null) {
            return null;
        }
        if (kind != null && !KINDS.contains(kind)) {
            throw new InvalidInputException(null, name, null, "fabric '" + kind + "' is not infiniband, roce, iwarp or any");
        }
        Double gbps = null;
        if (rate != null) {
            Matcher m = RATE.matcher(rate);
            if (!m.matches() || new BigDecimal(m.group(1)).signum() <= 0) {
                throw new InvalidInputException(null, name, null, "fabric>=" + rate + " is not a rate; expected Gb/s such as "
                        + "fabric>=400G (NDR) or fabric>=200G");
            }
            gbps = Double.parseDouble(m.group(1));
        }
        String k = kind == null || kind.equals("any") ? null : kind;
        String origin = (kind == null ? "" : "fabric=" + kind) + (kind != null && rate != null ? "," : "")
                + (rate == null ? "" : "fabric>=" + rate(gbps) + "G");
        return new FabricRequest(k, gbps, origin);
    }

    /**
     * What an SDL placement's attributes ask: {@code capabilities/gpu-interconnect: "true"} any RDMA fabric, a pin
     * {@code .../fabric/<kind>: "true"} that fabric; null when they ask neither. Akash's provider bids with its own
     * fabric when there is no pin.
     */
    static FabricRequest ofPlacement(Map<String, String> attributes) {
        boolean capability = "true".equals(attributes.get(CAPABILITY));
        String pinned = null;
        for (Map.Entry<String, String> e : attributes.entrySet()) {
            if (e.getKey().startsWith(FABRIC_PIN) && "true".equals(e.getValue())) {
                pinned = e.getKey().substring(FABRIC_PIN.length());
            }
        }
        if (pinned != null) {
            return new FabricRequest(pinned, null, FABRIC_PIN + pinned);
        }
        return capability ? new FabricRequest(null, null, CAPABILITY) : null;
    }

    /** {@code on infiniband >= 400 Gb/s}, for a request's description. */
    public String describe() {
        return "on " + (kind == null ? "an RDMA fabric" : kind) + (minGbps == null ? "" : " >= " + rate(minGbps) + " Gb/s");
    }

    /**
     * Why a node whose record holds {@code fabric} cannot serve this request; null when it can. A record without a
     * fabric (an agent before it read one, a replay without {@code sys/class/infiniband}) fails, with that said.
     */
    public String refusal(FabricSpec fabric) {
        if (fabric == null) {
            return origin + ": the node's record says nothing of its RDMA fabric (written by an agent that did not read "
                    + "it, or from a bundle without sys/class/infiniband)";
        }
        Double best = null;
        boolean kindActive = false;
        for (FabricSpec.Device d : fabric.devices()) {
            if (d.pciAddress() == null) {
                continue;
            }
            for (FabricSpec.Port p : d.ports()) {
                if (!"active".equals(p.state()) || p.kind() == null || (kind == null ? p.kind().equals("other") : !kind.equals(p.kind()))) {
                    continue;
                }
                kindActive = true;
                if (p.rateGbps() != null && (best == null || p.rateGbps() > best)) {
                    best = p.rateGbps();
                }
            }
        }
        String what = kind == null ? "RDMA" : kind;
        if (!kindActive) {
            return origin + ": no active " + what + " port (the node's fabric: " + summary(fabric) + ")";
        }
        if (minGbps != null && (best == null || best < minGbps)) {
            return origin + ": the fastest active " + what + " port runs at " + (best == null ? "an unknown rate"
                    : rate(best) + " Gb/s") + ", below " + rate(minGbps) + " Gb/s";
        }
        return null;
    }

    private static String summary(FabricSpec f) {
        if (f.devices().isEmpty()) {
            return "no RDMA device";
        }
        return (f.kinds().isEmpty() ? "no active port" : String.join(", ", f.kinds()) + " active")
                + ", " + f.devices().size() + " device" + (f.devices().size() == 1 ? "" : "s");
    }

    /** A rate as people write it: {@code 400}, {@code 2.5}. */
    private static String rate(double gbps) {
        return gbps == Math.rint(gbps) ? String.valueOf((long) gbps) : String.valueOf(gbps);
    }
}
