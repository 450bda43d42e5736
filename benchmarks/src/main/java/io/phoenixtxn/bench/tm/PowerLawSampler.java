package io.phoenixtxn.bench.tm;

import java.util.random.RandomGenerator;

/**
 * Write-set sizes from the FAST'17 (Omid, Reloaded) workload: P(size = k) proportional to k^-alpha for k in
 * 1..maxSize. Immutable and thread-safe; each caller brings its own random generator. Sampling inverts the
 * cumulative distribution by binary search (at most log2(maxSize) steps).
 */
public final class PowerLawSampler {
    /** The FAST'17 write-set size range. */
    public static final int FAST17_MAX_SIZE = 256;

    private final double alpha;
    private final int maxSize;
    /** cdf[k - 1] = P(size <= k); cdf[maxSize - 1] == 1. */
    private final double[] cdf;

    public PowerLawSampler(double alpha, int maxSize) {
        if (!(alpha > 0) || Double.isInfinite(alpha)) {
            throw new IllegalArgumentException("alpha must be a positive number, got " + alpha);
        }
        if (maxSize < 1) {
            throw new IllegalArgumentException("maxSize must be at least 1, got " + maxSize);
        }
        this.alpha = alpha;
        this.maxSize = maxSize;
        double[] weights = new double[maxSize];
        double total = 0;
        for (int k = 1; k <= maxSize; k++) {
            weights[k - 1] = Math.pow(k, -alpha);
            total += weights[k - 1];
        }
        cdf = new double[maxSize];
        double running = 0;
        for (int k = 1; k <= maxSize; k++) {
            running += weights[k - 1] / total;
            cdf[k - 1] = running;
        }
        cdf[maxSize - 1] = 1.0; // no rounding gap at the top
    }

    /** The FAST'17 mix: sizes 1..256. */
    public static PowerLawSampler fast17(double alpha) {
        return new PowerLawSampler(alpha, FAST17_MAX_SIZE);
    }

    public double alpha() {
        return alpha;
    }

    public int maxSize() {
        return maxSize;
    }

    /** P(size = k). */
    public double probability(int k) {
        if (k < 1 || k > maxSize) {
            return 0;
        }
        return k == 1 ? cdf[0] : cdf[k - 1] - cdf[k - 2];
    }

    /** Expected write-set size. */
    public double mean() {
        double m = 0;
        for (int k = 1; k <= maxSize; k++) {
            m += k * probability(k);
        }
        return m;
    }

    /** Maps a uniform {@code u} in [0, 1) to a size: the smallest k with P(size <= k) > u. */
    public int sizeFor(double u) {
        int lo = 0;
        int hi = maxSize - 1;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (cdf[mid] > u) {
                hi = mid;
            } else {
                lo = mid + 1;
            }
        }
        return lo + 1;
    }

    public int sample(RandomGenerator random) {
        return sizeFor(random.nextDouble());
    }

    @Override
    public String toString() {
        return "PowerLaw(alpha=" + alpha + ", 1.." + maxSize + ", mean=" + String.format("%.2f", mean()) + ")";
    }
}
