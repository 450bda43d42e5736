package io.phoenixtxn.history.workload;

/**
 * A workload decided not to apply an operation and wrote nothing (a transfer from an account without the funds):
 * the runner rolls back and records a fail, which is certain.
 */
public final class OperationNotApplied extends Exception {
    private static final long serialVersionUID = 1L;

    public OperationNotApplied(String reason) {
        super(reason);
    }
}
