package io.phoenixtxn.bench.index;

/** The windows of the live run that commits and aborts are attributed to (by the time they complete). */
enum Phase {
    /** Writers started, not measured yet. */
    WARMUP("warm-up"),
    /** Steady window before the CREATE INDEX. */
    BEFORE("before the build"),
    /** From the CREATE INDEX statement's start to its return. */
    DURING("during the build"),
    /** Steady window after the CREATE INDEX returned. */
    AFTER("after the build"),
    /** Writers are being stopped; nothing here is reported. */
    STOPPING("stopping");

    final String label;

    Phase(String label) {
        this.label = label;
    }
}
