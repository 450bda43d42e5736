package io.phoenixtxn.client;

import java.io.IOException;

/** Reads the commit cell of one version, wherever the caller sits (a region, or a client table). */
@FunctionalInterface
public interface CommitCellReader {
    /** The commit timestamp its commit cell holds, or {@link io.phoenixtxn.snapshot.Visibility#NOT_COMMITTED}. */
    long read(byte[] row, byte[] family, byte[] qualifier, long version) throws IOException;

    /**
     * The version is committed but has no commit cell (its writer's post-commit has not run, or the writer died):
     * the reader may help by writing it (VLDB'18: readers heal). Default: do nothing.
     */
    default void committedWithoutCommitCell(byte[] row, byte[] family, byte[] qualifier, long version, long commitTs) {
    }
}
