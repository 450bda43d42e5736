package io.phoenixtxn.coprocessor.fastpath;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * One {@link LocalVersionClock} per region server (VLDB'18 sec. 4.3), found by the server's name, which includes its
 * start code: a restarted server (in the same JVM, as a minicluster restarts them) gets a fresh clock, exactly as a
 * new process would, and its regions bootstrap again.
 */
final class RegionServerClocks {
    private static final Map<String, LocalVersionClock> CLOCKS = new ConcurrentHashMap<>();

    private RegionServerClocks() {
    }

    static LocalVersionClock of(String serverName, TimestampSource source, long maxSlotAgeMs) {
        return CLOCKS.computeIfAbsent(serverName,
                name -> new LocalVersionClock(source, maxSlotAgeMs, System::currentTimeMillis));
    }
}
