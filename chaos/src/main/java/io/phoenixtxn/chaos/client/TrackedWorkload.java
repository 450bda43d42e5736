package io.phoenixtxn.chaos.client;

import io.phoenixtxn.history.Mop;
import io.phoenixtxn.history.check.Checker;
import io.phoenixtxn.history.check.CheckerOptions;
import io.phoenixtxn.history.workload.Invocation;
import io.phoenixtxn.history.workload.OperationNotApplied;
import io.phoenixtxn.history.workload.Session;
import io.phoenixtxn.history.workload.Workload;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.Random;

/**
 * A workload as the chaos client runs it: the same operations, plus two things the driver needs: the running
 * operation of each thread ({@link CurrentOperation}, for the halt switch), and a signal once the setup committed
 * (the driver injects client faults only into clients past their setup).
 */
final class TrackedWorkload implements Workload {
    private final Workload delegate;
    private final Runnable afterSetUp;

    TrackedWorkload(Workload delegate, Runnable afterSetUp) {
        this.delegate = delegate;
        this.afterSetUp = afterSetUp;
    }

    @Override
    public String name() {
        return delegate.name();
    }

    @Override
    public List<Mop> setUp(Connection connection) throws SQLException {
        List<Mop> initial = delegate.setUp(connection);
        afterSetUp.run();
        return initial;
    }

    @Override
    public Invocation next(Random random) {
        return delegate.next(random);
    }

    @Override
    public List<Mop> apply(Session session, Invocation invocation) throws SQLException, OperationNotApplied,
            InterruptedException {
        CurrentOperation.set(invocation);
        try {
            return delegate.apply(session, invocation);
        } finally {
            CurrentOperation.clear();
        }
    }

    @Override
    public Invocation finalRead() {
        return delegate.finalRead();
    }

    @Override
    public Checker checker(CheckerOptions options) {
        return delegate.checker(options);
    }
}
