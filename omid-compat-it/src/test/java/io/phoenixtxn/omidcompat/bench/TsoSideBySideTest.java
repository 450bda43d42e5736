package io.phoenixtxn.omidcompat.bench;

import io.phoenixtxn.bench.tm.TmDriver;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The side-by-side benchmark works: a short run drives Omid's TSO (both modes) and our TM (loopback, in process)
 * with the same workload, and every system commits transactions. Not a measurement (see docs/performance.md).
 */
@Timeout(value = 180, unit = TimeUnit.SECONDS)
class TsoSideBySideTest {

    @Test
    void everySystemCommitsTheSameWorkload() throws Exception {
        List<TmDriver.Result> results = TsoSideBySide.run(new int[] {2}, 1, 2.0, 0.5,
                List.of("omid-legacy", "omid-ll", "ours-loopback", "ours-inprocess"));
        assertEquals(4, results.size());
        for (TmDriver.Result result : results) {
            assertTrue(result.committed() > 50, result.toString());
            assertEquals(0, result.aborted(), "random 64-bit rows do not conflict: " + result);
        }
        String table = TsoSideBySide.table(results);
        assertTrue(table.contains("omid-1.1.2 tso legacy") && table.contains("phoenix-txn in process"), table);
    }
}
