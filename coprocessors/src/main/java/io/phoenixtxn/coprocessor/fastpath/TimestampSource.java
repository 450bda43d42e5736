package io.phoenixtxn.coprocessor.fastpath;

import java.util.concurrent.CompletableFuture;

/**
 * Fresh TM timestamps for a region server's version clock ({@code TransactionManager#timestampAsync}): each is above
 * every timestamp the TM issued before it was asked. The seam for tests, which script the answers.
 */
@FunctionalInterface
public interface TimestampSource {
    /** A fresh timestamp; fails when no TM is reachable. Must not block the caller. */
    CompletableFuture<Long> fresh();
}
