package io.phoenixtxn.bench.workload;

import java.util.Arrays;

/** Latencies of one measured run: mean, p50, p99 and throughput, in microseconds and operations per second. */
final class Stats {
    final String name;
    final double meanMicros;
    final double p50Micros;
    final double p99Micros;
    final double opsPerSecond;

    private Stats(String name, double meanMicros, double p50Micros, double p99Micros, double opsPerSecond) {
        this.name = name;
        this.meanMicros = meanMicros;
        this.p50Micros = p50Micros;
        this.p99Micros = p99Micros;
        this.opsPerSecond = opsPerSecond;
    }

    static Stats of(String name, long[] nanos, long wallNanos) {
        long[] sorted = nanos.clone();
        Arrays.sort(sorted);
        double mean = Arrays.stream(sorted).average().orElse(0) / 1_000.0;
        return new Stats(name, mean, sorted[sorted.length / 2] / 1_000.0,
                sorted[Math.min(sorted.length - 1, (int) Math.ceil(sorted.length * 0.99) - 1)] / 1_000.0,
                sorted.length / (wallNanos / 1e9));
    }

    static String header() {
        return "| workload | threads | mean us | p50 us | p99 us | ops/s |\n| --- | --- | --- | --- | --- | --- |";
    }

    String row(int threads) {
        return String.format("| %s | %d | %.0f | %.0f | %.0f | %.0f |", name, threads, meanMicros, p50Micros,
                p99Micros, opsPerSecond);
    }
}
