package io.phoenixtxn.bench.workload;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Smoke run of {@code bin/bench-readcost} with a tiny history, so the benchmark keeps working between the runs
 * that take numbers: it asserts only that every measurement ran and printed its row, never a latency.
 */
class ReadCostBenchmarkIT {
    @Test
    @Timeout(value = 10, unit = TimeUnit.MINUTES)
    void runsEveryMeasurement() throws Exception {
        ByteArrayOutputStream printed = new ByteArrayOutputStream();
        List<String> rows = ReadCostBenchmark.run(new String[] {"--updates", "25", "--threads", "1,2", "--reads", "20",
                        "--warmup", "5", "--storage-updates", "40", "--compact-every", "20"},
                new PrintStream(printed, true, StandardCharsets.UTF_8));
        String output = printed.toString(StandardCharsets.UTF_8);
        assertEquals(8, rows.size(), output);
        assertTrue(rows.get(0).startsWith("| in an explicit transaction (select, commit) | 1 |"), output);
        assertTrue(rows.get(3).startsWith("| auto-commit | 2 |"), output);
        assertTrue(rows.get(4).startsWith("| 25 | before any flush (0 store files) |"), output);
        assertTrue(rows.get(5).startsWith("| 25 | after flush + major compaction (1 store file) |"), output);
        assertTrue(rows.get(6).startsWith("| 20 | "), output);
        assertTrue(rows.get(7).startsWith("| 40 | "), output);
    }
}
