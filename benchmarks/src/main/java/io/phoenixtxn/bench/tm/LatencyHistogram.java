package io.phoenixtxn.bench.tm;

/**
 * A small log-linear latency histogram (no dependency on HdrHistogram): values in nanoseconds, 64 linear
 * sub-buckets per power of two, so a reported percentile is within 1/64 (1.6%) of the true value. One per thread,
 * merged at the end; not thread-safe.
 */
public final class LatencyHistogram {
    private static final int SUB_BITS = 6;
    private static final int SUB_BUCKETS = 1 << SUB_BITS;
    private final long[] counts = new long[(64 - SUB_BITS + 1) * SUB_BUCKETS];
    private long total;
    private long max;

    static int indexOf(long value) {
        if (value < SUB_BUCKETS) {
            return (int) Math.max(0, value);
        }
        int shift = 63 - Long.numberOfLeadingZeros(value) - SUB_BITS; // >= 0
        int sub = (int) (value >>> shift) - SUB_BUCKETS;                 // 0..63
        return (shift + 1) * SUB_BUCKETS + sub;
    }

    /** Highest value that falls in bucket {@code index}. */
    static long upperBoundOf(int index) {
        int magnitude = index / SUB_BUCKETS;
        int sub = index % SUB_BUCKETS;
        if (magnitude == 0) {
            return sub;
        }
        long upper = ((long) (SUB_BUCKETS + sub + 1) << (magnitude - 1)) - 1;
        return upper < 0 ? Long.MAX_VALUE : upper; // the top bucket reaches Long.MAX_VALUE
    }

    public void record(long nanos) {
        counts[indexOf(nanos)]++;
        total++;
        if (nanos > max) {
            max = nanos;
        }
    }

    public void add(LatencyHistogram other) {
        for (int i = 0; i < counts.length; i++) {
            counts[i] += other.counts[i];
        }
        total += other.total;
        max = Math.max(max, other.max);
    }

    public long count() {
        return total;
    }

    public long max() {
        return max;
    }

    /** The value at or below which {@code percentile} percent of the recorded values fall (bucket upper bound). */
    public long percentile(double percentile) {
        if (total == 0) {
            return 0;
        }
        long rank = (long) Math.ceil(percentile / 100.0 * total);
        rank = Math.max(1, Math.min(total, rank));
        long seen = 0;
        for (int i = 0; i < counts.length; i++) {
            seen += counts[i];
            if (seen >= rank) {
                return Math.min(upperBoundOf(i), max);
            }
        }
        return max;
    }
}
