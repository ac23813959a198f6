package io.gpudetect.render;

import com.fasterxml.jackson.dataformat.yaml.util.StringQuotingChecker;
import org.yaml.snakeyaml.nodes.NodeId;
import org.yaml.snakeyaml.nodes.Tag;
import org.yaml.snakeyaml.resolver.Resolver;

/**
 * Quotes every string a YAML reader would otherwise take for something else. With quotes minimised, jackson
 * wrote PCI ids and versions bare, and a reader got numbers back: {@code 1e04} (an RTX 2080 Ti's device id)
 * as the float 10000.0, {@code 2330} as an integer, compute capability {@code 9.0} as a float. A value is
 * quoted when SnakeYAML's YAML 1.1 resolver reads it as anything but a string (numbers with exponents,
 * {@code 0x} and {@code _}, booleans such as {@code on}, null), or when it is a YAML 1.2 octal ({@code 0o17}),
 * besides what jackson quotes anyway.
 */
final class YamlQuoting extends StringQuotingChecker.Default {

    private static final long serialVersionUID = 1L;

    private final transient Resolver yaml11 = new Resolver();

    @Override
    public boolean needToQuoteValue(String value) {
        return super.needToQuoteValue(value)
                || !Tag.STR.equals(yaml11.resolve(NodeId.scalar, value, true))
                || isYaml12Octal(value);
    }

    private static boolean isYaml12Octal(String value) {
        if (value.length() < 3 || !value.startsWith("0o")) {
            return false;
        }
        for (int i = 2; i < value.length(); i++) {
            if (value.charAt(i) < '0' || value.charAt(i) > '7') {
                return false;
            }
        }
        return true;
    }
}
