package io.phoenixtxn.history.workload;

import java.sql.Connection;
import java.sql.SQLException;

/**
 * A client's connection during one operation. It remembers whether the commit of writes began: an error before
 * that point leaves nothing committed (a fail), an error from that commit may hide a commit (unknown), see {@link
 * Outcomes}.
 */
public final class Session {
    private final Connection connection;
    private boolean writeCommitStarted;

    public Session(Connection connection) {
        this.connection = connection;
    }

    public Connection connection() {
        return connection;
    }

    /** Commits a transaction that wrote: from here on an error's outcome may be unknown. */
    public void commitWrites() throws SQLException {
        writeCommitStarted = true;
        connection.commit();
    }

    /** Ends a transaction that only read: it commits nothing, so its errors are plain failures. */
    public void commitReads() throws SQLException {
        connection.commit();
    }

    public boolean writeCommitStarted() {
        return writeCommitStarted;
    }
}
