package io.gpudetect.match;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.gpudetect.model.Vendor;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

class CapabilityRequestTest {

    @Test
    void readsEveryKey() throws InvalidInputException {
        Placement p = CapabilityRequest.parse("vendor=nvidia,model=h100|A100,vram>=24Gi,count=2,interface=SXM4,"
                + "mig=1g.10gb,replicas=3", 1);
        assertEquals("--gpu[1]", p.service());
        assertEquals(3, p.replicas());
        assertEquals(2, p.gpu().units());
        assertEquals(List.of(new GpuChoice(Vendor.NVIDIA, "h100", 24, true, "sxm", "1g.10gb"),
                new GpuChoice(Vendor.NVIDIA, "a100", 24, true, "sxm", "1g.10gb")), p.gpu().choices());
    }

    @Test
    void defaultsToOneUnitOfAnyModel() throws InvalidInputException {
        Placement p = CapabilityRequest.parse("vendor=amd", 0);
        assertEquals("1 x amd *", p.gpu().describe());
        assertEquals(new GpuChoice(Vendor.AMD, null, 80, false, null, null),
                CapabilityRequest.parse("vendor=amd,ram=80Gi", 0).gpu().choices().get(0));
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
        "model=h100                 | vendor missing",
        "vendor=matrox              | unknown vendor 'matrox'",
        "vendor=nvidia,count=0      | count '0' is not a whole number",
        "vendor=nvidia,count=1.5    | count '1.5' is not a whole number",
        "vendor=nvidia,vram=24G     | vram '24g' is not a size",
        "vendor=nvidia,count>=2     | '>=' only works with vram, driver",
        "vendor=nvidia,colour=green | unknown key 'colour'",
        "vendor=nvidia,interface=nvlink | interface 'nvlink' is not pcie or sxm",
        "vendor=nvidia,mig=half     | mig 'half' is not a MIG profile",
        "vendor=nvidia,h100         | 'h100' is not key=value",
        "vendor=nvidia,vendor=amd   | vendor given twice",
    })
    void rejectsWithAReason(String text, String words) {
        InvalidInputException e = assertThrows(InvalidInputException.class, () -> CapabilityRequest.parse(text, 0));
        assertEquals("--gpu[0]", e.path());
        assertTrue(e.problem().contains(words), e.getMessage());
    }

    @Test
    void vramIsAWholeBinaryQuantity() {
        assertEquals(80L, CapabilityRequest.parseGi("80Gi"));
        assertEquals(40L, CapabilityRequest.parseGi("40960Mi"));
        assertEquals(1024L, CapabilityRequest.parseGi("1Ti"));
        assertEquals(null, CapabilityRequest.parseGi("80G"));
        assertEquals(null, CapabilityRequest.parseGi("80GB"));
        assertEquals(null, CapabilityRequest.parseGi("0.5Gi"));
    }
}
