package io.gpudetect.akash;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import org.junit.jupiter.api.Test;

/** The table's {@code memory_size} read as the operator's labels write it: one to six digits, then {@code Gi}. */
class OperatorRulesGiTest {

    @Test
    void readsOneToSixDigitsThenGi() {
        assertEquals(24, OperatorRules.gi("24Gi"));
        assertEquals(192, OperatorRules.gi("192Gi"));
        assertEquals(0, OperatorRules.gi("0Gi"));
        assertEquals(80, OperatorRules.gi("080Gi"));
        assertEquals(123456, OperatorRules.gi("123456Gi"));
    }

    @Test
    void anythingElseIsNotASize() {
        for (String s : new String[] {null, "", "Gi", "1234567Gi", "24", "24GB", "24gi", "24 Gi", " 24Gi", "24Gi ",
                "+24Gi", "-1Gi", "2.5Gi", "\u0662\u0664Gi", "24GiGi"}) {
            assertNull(OperatorRules.gi(s), s);
        }
    }
}
