package io.phoenixtxn.phoenix;

import org.apache.hadoop.hbase.TableName;

/**
 * Test seam of the Phoenix fast-path routing ({@link PhoenixTxnContext}): called right before a kept-back row is sent
 * as a bwc, between a bwc's abort and its regular retry, and when Phoenix's send hands a row over, so a test can place a concurrent writer or DDL exactly
 * there. Production code installs nothing.
 */
public interface RoutingHooks {
    RoutingHooks NONE = new RoutingHooks() {
    };

    /** Before the bwc of a row of {@code table} (a statement routed onto the fast path) is sent. */
    default void beforeFastPathWrite(TableName table) {
    }

    /** After a bwc to {@code table} aborted, before the row is retried as a regular transaction (before its begin). */
    default void beforeRegularRetry(TableName table) {
    }

    /**
     * When Phoenix's send hands a row of {@code table} to the provider, before the provider decides between keeping it
     * back for the fast path and a regular write (rows built from metadata read earlier, at a provisional id).
     */
    default void beforeSendDecision(TableName table) {
    }

    static RoutingHooks current() {
        return Holder.hooks;
    }

    /** Installs {@code hooks} JVM-wide; returns the previous ones. */
    static RoutingHooks install(RoutingHooks hooks) {
        RoutingHooks previous = Holder.hooks;
        Holder.hooks = hooks == null ? NONE : hooks;
        return previous;
    }

    final class Holder {
        private static volatile RoutingHooks hooks = NONE;

        private Holder() {
        }
    }
}
