package io.phoenixtxn.bench.tm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Arrays;
import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class LatencyHistogramTest {

    @Test
    void bucketsAreContiguousAndTight() {
        long previousUpper = -1;
        for (int i = 0; i < 64 * 40; i++) {
            long upper = LatencyHistogram.upperBoundOf(i);
            long lower = previousUpper + 1;
            assertEquals(i, LatencyHistogram.indexOf(lower), "lower bound of bucket " + i);
            assertEquals(i, LatencyHistogram.indexOf(upper), "upper bound of bucket " + i);
            assertTrue(upper - lower <= Math.max(0, lower / 64), "bucket " + i + " too wide: " + lower + ".." + upper);
            previousUpper = upper;
        }
        assertEquals(LatencyHistogram.indexOf(Long.MAX_VALUE), LatencyHistogram.indexOf(Long.MAX_VALUE - 1));
        assertEquals(Long.MAX_VALUE, LatencyHistogram.upperBoundOf(LatencyHistogram.indexOf(Long.MAX_VALUE)));
    }

    @Test
    void percentilesWithinOnePointSixPercentOfExact() {
        SplittableRandom random = new SplittableRandom(1);
        int n = 200_000;
        long[] values = new long[n];
        LatencyHistogram a = new LatencyHistogram();
        LatencyHistogram b = new LatencyHistogram();
        for (int i = 0; i < n; i++) {
            values[i] = (long) Math.exp(random.nextDouble() * 16); // 1 ns .. ~9 ms, log-uniform
            (i % 2 == 0 ? a : b).record(values[i]);
        }
        a.add(b);
        Arrays.sort(values);
        assertEquals(n, a.count());
        assertEquals(values[n - 1], a.max());
        for (double p : new double[] {1, 50, 90, 99, 99.9, 100}) {
            long exact = values[(int) Math.max(0, Math.ceil(p / 100 * n) - 1)];
            long reported = a.percentile(p);
            assertTrue(reported >= exact && reported <= exact + Math.max(1, exact / 64),
                    "p" + p + ": exact " + exact + " reported " + reported);
        }
        assertEquals(0, new LatencyHistogram().percentile(50));
    }
}
