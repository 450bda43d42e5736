package io.phoenixtxn.bench.tm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.SplittableRandom;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

@Timeout(value = 30, unit = TimeUnit.SECONDS)
class PowerLawSamplerTest {

    @ParameterizedTest
    @ValueSource(doubles = {1.2, 1.6, 2.0})
    void probabilitiesFollowThePowerLaw(double alpha) {
        PowerLawSampler s = PowerLawSampler.fast17(alpha);
        double sum = 0;
        double norm = 0;
        for (int k = 1; k <= 256; k++) {
            norm += Math.pow(k, -alpha);
        }
        for (int k = 1; k <= 256; k++) {
            assertEquals(Math.pow(k, -alpha) / norm, s.probability(k), 1e-12, "k=" + k);
            sum += s.probability(k);
            // P(k) / P(1) = k^-alpha: the defining ratio.
            assertEquals(Math.pow(k, -alpha), s.probability(k) / s.probability(1), 1e-9);
        }
        assertEquals(1.0, sum, 1e-12);
        assertEquals(0, s.probability(0));
        assertEquals(0, s.probability(257));
    }

    @Test
    void sizeForCoversTheWholeRangeAtTheEdges() {
        PowerLawSampler s = PowerLawSampler.fast17(1.6);
        assertEquals(1, s.sizeFor(0.0));
        assertEquals(256, s.sizeFor(Math.nextDown(1.0)));
        assertEquals(1, s.sizeFor(Math.nextDown(s.probability(1))));
        assertEquals(2, s.sizeFor(s.probability(1)));
        for (int i = 0; i < 10_000; i++) {
            int k = s.sizeFor(i / 10_000.0);
            assertTrue(k >= 1 && k <= 256);
        }
        assertEquals(1, new PowerLawSampler(3.0, 1).sizeFor(0.999), "a single size");
    }

    /**
     * Empirical distribution of 2M samples against the exact one: every size with an expected count of at least
     * 50 within 5 standard deviations, the grouped tail too, a chi-square far below its 1e-6 critical value, and
     * the sample mean within 5 standard errors.
     */
    @ParameterizedTest
    @ValueSource(doubles = {1.2, 1.6, 2.0})
    void empiricalDistributionMatches(double alpha) {
        PowerLawSampler s = PowerLawSampler.fast17(alpha);
        SplittableRandom random = new SplittableRandom(20170227L + Double.hashCode(alpha));
        int n = 2_000_000;
        long[] counts = new long[257];
        double sum = 0;
        double sumSq = 0;
        for (int i = 0; i < n; i++) {
            int k = s.sample(random);
            counts[k]++;
            sum += k;
        }
        double chi2 = 0;
        int bins = 0;
        double tailExpected = 0;
        long tailObserved = 0;
        for (int k = 1; k <= 256; k++) {
            double p = s.probability(k);
            double expected = n * p;
            sumSq += p * k * (double) k;
            if (expected >= 50) {
                double sd = Math.sqrt(n * p * (1 - p));
                assertTrue(Math.abs(counts[k] - expected) < 5 * sd,
                        "alpha=" + alpha + " k=" + k + ": " + counts[k] + " vs " + expected);
                chi2 += (counts[k] - expected) * (counts[k] - expected) / expected;
                bins++;
            } else {
                tailExpected += expected;
                tailObserved += counts[k];
            }
        }
        if (tailExpected > 0) {
            double p = tailExpected / n;
            assertTrue(Math.abs(tailObserved - tailExpected) < 5 * Math.sqrt(n * p * (1 - p)) + 5,
                    "alpha=" + alpha + " tail: " + tailObserved + " vs " + tailExpected);
            chi2 += (tailObserved - tailExpected) * (tailObserved - tailExpected) / Math.max(tailExpected, 1);
            bins++;
        }
        // Chi-square with (bins - 1) degrees of freedom: mean df, sd sqrt(2 df); 1e-6 tail is under df + 7 sd.
        int df = bins - 1;
        assertTrue(chi2 < df + 7 * Math.sqrt(2.0 * df), "alpha=" + alpha + " chi2=" + chi2 + " df=" + df);
        double mean = s.mean();
        double variance = sumSq - mean * mean;
        assertEquals(mean, sum / n, 5 * Math.sqrt(variance / n), "alpha=" + alpha + " mean");
    }

    @Test
    void heavierTailForSmallerAlpha() {
        double m12 = PowerLawSampler.fast17(1.2).mean();
        double m16 = PowerLawSampler.fast17(1.6).mean();
        double m20 = PowerLawSampler.fast17(2.0).mean();
        assertTrue(m12 > m16 && m16 > m20, m12 + " " + m16 + " " + m20);
        assertTrue(PowerLawSampler.fast17(1.2).toString().contains("mean="));
    }

    @Test
    void rejectsBadParameters() {
        assertThrows(IllegalArgumentException.class, () -> new PowerLawSampler(0, 256));
        assertThrows(IllegalArgumentException.class, () -> new PowerLawSampler(-1, 256));
        assertThrows(IllegalArgumentException.class, () -> new PowerLawSampler(Double.NaN, 256));
        assertThrows(IllegalArgumentException.class, () -> new PowerLawSampler(Double.POSITIVE_INFINITY, 256));
        assertThrows(IllegalArgumentException.class, () -> new PowerLawSampler(1.6, 0));
    }
}
