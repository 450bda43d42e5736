package io.phoenixtxn.snapshot;

/** Thrown when a transaction asks for more than {@link TimestampLayout#MAX_CHECKPOINTS} checkpoints. */
public class CheckpointLimitException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    public CheckpointLimitException(long txId) {
        super("Transaction " + txId + " has used all " + TimestampLayout.MAX_CHECKPOINTS
                + " checkpoints (one per statement that reads the table it writes); commit or roll back and"
                + " continue in a new transaction");
    }
}
