package io.phoenixtxn.client;

import java.io.IOException;

/** Reads the commit cell of one version, wherever the caller sits (a region, or a client table). */
@FunctionalInterface
public interface CommitCellReader {
    /** The commit timestamp its commit cell holds, or {@link io.phoenixtxn.snapshot.Visibility#NOT_COMMITTED}. */
    long read(byte[] row, byte[] family, byte[] qualifier, long version) throws IOException;
}
