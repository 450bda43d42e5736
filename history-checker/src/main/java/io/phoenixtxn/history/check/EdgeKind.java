package io.phoenixtxn.history.check;

/**
 * Dependency edges between committed transactions (Adya): {@code ww} T1 wrote a version T2 overwrote next;
 * {@code wr} T2 read a version T1 wrote; {@code rw} T1 read a version T2 overwrote next (anti-dependency);
 * {@code process} T1 completed before T2 was invoked by the same process (session order); {@code realtime} T1
 * was acknowledged before T2 was invoked (T2's snapshot must include T1: its start timestamp comes later).
 */
public enum EdgeKind {
    WW("ww"), WR("wr"), RW("rw"), PROCESS("process"), REALTIME("realtime");

    private final String label;

    EdgeKind(String label) {
        this.label = label;
    }

    public String label() {
        return label;
    }

    int bit() {
        return 1 << ordinal();
    }
}
