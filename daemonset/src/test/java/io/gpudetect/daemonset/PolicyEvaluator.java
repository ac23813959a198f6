package io.gpudetect.daemonset;

import dev.cel.common.CelValidationException;
import dev.cel.common.types.MapType;
import dev.cel.common.types.SimpleType;
import dev.cel.compiler.CelCompiler;
import dev.cel.compiler.CelCompilerFactory;
import dev.cel.parser.CelStandardMacro;
import dev.cel.runtime.CelEvaluationException;
import dev.cel.runtime.CelRuntime;
import dev.cel.runtime.CelRuntimeFactory;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.MatchCondition;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.Validation;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.ValidatingAdmissionPolicy;
import io.fabric8.kubernetes.api.model.admissionregistration.v1.Variable;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Runs a rendered ValidatingAdmissionPolicy's CEL the way the API server does, in its order: match
 * conditions, then each variable (later ones see earlier ones as {@code variables.x}), then every
 * validation. Uses Google's CEL for Java with dynamic types: it checks the expressions' logic and
 * syntax, not the API server's schema-typed checking of {@code object} and {@code oldObject}.
 */
final class PolicyEvaluator {

    private static final CelCompiler COMPILER = CelCompilerFactory.standardCelCompilerBuilder()
            .setStandardMacros(CelStandardMacro.STANDARD_MACROS)
            .addVar("request", SimpleType.DYN)
            .addVar("object", SimpleType.DYN)
            .addVar("oldObject", SimpleType.DYN)
            .addVar("variables", MapType.create(SimpleType.STRING, SimpleType.DYN))
            .build();
    private static final CelRuntime RUNTIME = CelRuntimeFactory.standardCelRuntimeBuilder().build();

    /** What the API server would answer: not matched (policy skipped), allowed, or denied with messages. */
    record Decision(boolean matched, List<String> denials) {
        boolean allowed() {
            return !matched || denials.isEmpty();
        }
    }

    private PolicyEvaluator() {
    }

    static Decision evaluate(ValidatingAdmissionPolicy policy, Map<String, Object> request, Map<String, Object> object,
            Map<String, Object> oldObject) {
        Map<String, Object> input = new HashMap<>();
        input.put("request", request);
        input.put("object", object);
        input.put("oldObject", oldObject);
        Map<String, Object> variables = new HashMap<>();
        input.put("variables", variables);
        for (MatchCondition condition : policy.getSpec().getMatchConditions()) {
            if (!(Boolean) eval(condition.getExpression(), input)) {
                return new Decision(false, List.of());
            }
        }
        for (Variable variable : policy.getSpec().getVariables()) {
            variables.put(variable.getName(), eval(variable.getExpression(), input));
        }
        List<String> denials = new ArrayList<>();
        for (Validation validation : policy.getSpec().getValidations()) {
            if (!(Boolean) eval(validation.getExpression(), input)) {
                denials.add(validation.getMessageExpression() != null
                        ? (String) eval(validation.getMessageExpression(), input) : validation.getMessage());
            }
        }
        return new Decision(true, denials);
    }

    private static Object eval(String expression, Map<String, Object> input) {
        try {
            return RUNTIME.createProgram(COMPILER.compile(expression).getAst()).eval(input);
        } catch (CelValidationException | CelEvaluationException e) {
            throw new AssertionError("CEL failed: " + expression + "\n" + e.getMessage(), e);
        }
    }
}
