package io.phoenixtxn.client.fastpath;

import org.apache.hadoop.hbase.util.Bytes;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;

/** The fast path's write modes are named by the request and survive its encoding (the region server decides by them). */
class FastPathRequestTest {
    private static final byte[] F = Bytes.toBytes("f");
    private static final List<ColumnValue> COLUMNS = List.of(new ColumnValue(F, Bytes.toBytes("q"), Bytes.toBytes(1L)));

    @Test
    void eachWriteNamesItsModeOnBothSidesOfTheWire() throws Exception {
        FastPathRequest blind = FastPathRequest.write(FastPathRequest.NO_BOUND, COLUMNS);
        FastPathRequest conditional = FastPathRequest.write(42L, COLUMNS);
        FastPathRequest function = FastPathRequest.function(FastPathFunction.increment(F, Bytes.toBytes("q"), 1));

        assertSame(FastPathRequest.Mode.BLIND, FastPathRequest.decode(blind.encode()).mode());
        assertSame(FastPathRequest.Mode.CONDITIONAL, FastPathRequest.decode(conditional.encode()).mode());
        assertEquals(42L, FastPathRequest.decode(conditional.encode()).bound());
        assertSame(FastPathRequest.Mode.FUNCTION, FastPathRequest.decode(function.encode()).mode());
    }
}
