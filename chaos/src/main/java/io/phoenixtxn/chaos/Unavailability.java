package io.phoenixtxn.chaos;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * A fault's unavailability window: from its injection to the completion of the first acknowledged read-write
 * commit that was invoked at or after the injection, by any client, or by the clients the fault could stall (a
 * region server's tables, an indexed table's writers). Counting only transactions invoked after the fault keeps a
 * commit that was already decided before it from hiding an outage; the window therefore includes that one
 * transaction's own latency (a few milliseconds), an upper bound of the time nothing could commit.
 */
final class Unavailability {
    /** An acknowledged read-write transaction of a client, on the run's clock. */
    record Commit(String client, long invokedAt, long completedAt) {
    }

    private Unavailability() {
    }

    /**
     * The window of a fault injected at {@code at}; {@code clients} null or empty means any client. Null if no
     * such commit followed (the system did not recover before the run ended).
     */
    static Long window(long at, Set<String> clients, List<Commit> commits) {
        boolean any = clients == null || clients.isEmpty();
        long best = Long.MAX_VALUE;
        for (Commit c : commits) {
            if (c.invokedAt() >= at && c.completedAt() < best && (any || clients.contains(c.client()))) {
                best = c.completedAt();
            }
        }
        return best == Long.MAX_VALUE ? null : best - at;
    }

    static long median(List<Long> values) {
        List<Long> sorted = new ArrayList<>(values);
        sorted.sort(null);
        int n = sorted.size();
        if (n == 0) {
            throw new IllegalArgumentException("no values");
        }
        return n % 2 == 1 ? sorted.get(n / 2) : (sorted.get(n / 2 - 1) + sorted.get(n / 2)) / 2;
    }

    static long max(List<Long> values) {
        return values.stream().mapToLong(Long::longValue).max().orElseThrow();
    }
}
