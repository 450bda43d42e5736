package io.phoenixtxn.history.workload;

import io.phoenixtxn.history.Mop;
import io.phoenixtxn.history.check.Checker;
import io.phoenixtxn.history.check.CheckerOptions;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Random;

/**
 * A workload that clients run through JDBC and a checker reads: it creates its schema, generates operations,
 * applies each in a transaction and reports what it read, and names its final read and its checker. Instances are
 * shared by the client threads: {@link #next} and {@link #apply} are thread-safe.
 */
public interface Workload {
    String name();

    /**
     * Creates the tables (fresh ones: an existing table is an error, so histories never mix) and the initial
     * state; returns the initial state as micro-ops to record as the setup operation (empty: nothing to record).
     */
    List<Mop> setUp(Connection connection) throws SQLException;

    /** The next operation for a client. */
    Invocation next(Random random);

    /**
     * Applies {@code invocation} on the session's connection (autocommit off), committing through the session;
     * returns the completion value (the invocation's micro-ops with what was read).
     */
    List<Mop> apply(Session session, Invocation invocation) throws SQLException, OperationNotApplied,
            InterruptedException;

    /** Reads everything the checker needs at the end, in one transaction. */
    Invocation finalRead();

    Checker checker(CheckerOptions options);
}
