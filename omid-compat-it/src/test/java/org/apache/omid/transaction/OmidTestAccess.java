package org.apache.omid.transaction;

import org.apache.omid.tso.client.CellId;
import org.apache.phoenix.thirdparty.com.google.common.util.concurrent.Futures;
import org.apache.phoenix.thirdparty.com.google.common.util.concurrent.ListenableFuture;

import java.io.IOException;

/**
 * Test-only access to a package-private seam of the Apache Omid 1.1.2 client ({@code Builder.postCommitter}), the
 * same seam Omid's own tests use to simulate a client that dies between its commit and its shadow cells. Lives in
 * Omid's package only because the builder method is package-private; it is never on any other module's classpath.
 */
public final class OmidTestAccess {
    private OmidTestAccess() {
    }

    /**
     * A transaction manager whose post-commit does nothing: its commits stop at the commit-table entry the TSO wrote
     * (no shadow cells, entry never removed), exactly what a client crash right after commit leaves behind.
     */
    public static HBaseTransactionManager withoutPostCommit(HBaseOmidClientConfiguration configuration)
            throws IOException, InterruptedException {
        return HBaseTransactionManager.builder(configuration).postCommitter(new SkippedPostCommit()).build();
    }

    /** Post-commit actions that skip both steps (shadow cells, commit-table cleanup). */
    private static final class SkippedPostCommit implements PostCommitActions {
        @Override
        public ListenableFuture<Void> updateShadowCells(AbstractTransaction<? extends CellId> transaction) {
            return Futures.immediateFuture(null);
        }

        @Override
        public ListenableFuture<Void> removeCommitTableEntry(AbstractTransaction<? extends CellId> transaction) {
            return Futures.immediateFuture(null);
        }
    }
}
