package io.phoenixtxn.bench.index;

import java.lang.management.GarbageCollectorMXBean;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Heap in use sampled every 100 ms while a build runs (an upper bound on the live set, not the live set), and the
 * collectors' counts and times over the same span; and the machine's load average, which every benchmark reports.
 */
final class HeapSampler {
    private final AtomicLong peak = new AtomicLong();
    private final long[] startCounts;
    private final long[] startTimes;
    private volatile boolean stopped;
    private final Thread thread;
    private String summary = "";

    HeapSampler() {
        var collectors = ManagementFactory.getGarbageCollectorMXBeans();
        startCounts = new long[collectors.size()];
        startTimes = new long[collectors.size()];
        for (int i = 0; i < collectors.size(); i++) {
            startCounts[i] = collectors.get(i).getCollectionCount();
            startTimes[i] = collectors.get(i).getCollectionTime();
        }
        var memory = ManagementFactory.getMemoryMXBean();
        thread = new Thread(() -> {
            while (!stopped) {
                peak.accumulateAndGet(memory.getHeapMemoryUsage().getUsed(), Math::max);
                try {
                    Thread.sleep(100);
                } catch (InterruptedException e) {
                    return;
                }
            }
        }, "bench-heap-sampler");
        thread.setDaemon(true);
        thread.start();
    }

    void stop() throws InterruptedException {
        stopped = true;
        thread.interrupt();
        thread.join();
        var collectors = ManagementFactory.getGarbageCollectorMXBeans();
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < collectors.size(); i++) {
            GarbageCollectorMXBean gc = collectors.get(i);
            b.append(i == 0 ? "" : "; ").append(gc.getName()).append(' ')
                    .append(gc.getCollectionCount() - startCounts[i]).append(" / ")
                    .append(gc.getCollectionTime() - startTimes[i]);
        }
        summary = b.toString();
    }

    long peakMb() {
        return peak.get() >> 20;
    }

    String gcSummary() {
        return summary;
    }

    /** The 1, 5 and 15 minute load averages, or "n/a". */
    static String loadAverage() {
        try {
            String[] parts = Files.readString(Path.of("/proc/loadavg")).trim().split("\\s+");
            return parts[0] + " " + parts[1] + " " + parts[2];
        } catch (Exception e) {
            return "n/a";
        }
    }
}
