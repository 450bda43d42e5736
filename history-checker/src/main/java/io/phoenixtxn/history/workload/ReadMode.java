package io.phoenixtxn.history.workload;

/**
 * How read-only operations read several keys or accounts.
 *
 * <ul>
 *   <li>{@link #SNAPSHOT}: in one transaction, as the workloads are meant to run;</li>
 *   <li>{@link #PER_KEY_TRANSACTIONS}: the deliberately broken client, each key in its own transaction (no common
 *       snapshot), to show that the checker reports fractured reads and changed totals. Never a valid test of the
 *       database: histories from it are expected to fail.</li>
 * </ul>
 */
public enum ReadMode {
    SNAPSHOT, PER_KEY_TRANSACTIONS
}
