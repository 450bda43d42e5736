package io.phoenixtxn.client.fastpath;

import org.apache.hadoop.hbase.client.RetriesExhaustedWithDetailsException;

import java.io.IOException;

/**
 * Finds the region server's fast-path refusal in what the HBase client throws: the exception itself for a single
 * operation, or one of the per-action causes of a batch ({@link RetriesExhaustedWithDetailsException}), possibly
 * wrapped. Callers rethrow it, so applications and Phoenix see the refusal's own class and message.
 */
public final class FastPathFailures {
    private FastPathFailures() {
    }

    /**
     * The message of a region server's exception of class {@code type} as the HBase client hands it over: the remote
     * text ({@code "class: message"}, then the server's stack) cut back to the message.
     */
    static String ownMessage(String remote, Class<?> type) {
        if (remote == null) {
            return null;
        }
        String text = remote;
        String prefix = type.getName() + ": ";
        if (text.startsWith(prefix)) {
            text = text.substring(prefix.length());
        }
        int stack = text.indexOf('\n');
        return stack < 0 ? text : text.substring(0, stack);
    }

    /** The first {@code type} in the failure's causes (batch causes included), or null. */
    public static <T extends IOException> T find(Throwable failure, Class<T> type) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (type.isInstance(t)) {
                return type.cast(t);
            }
            if (t instanceof RetriesExhaustedWithDetailsException batch) {
                for (Throwable cause : batch.getCauses()) {
                    T found = find(cause, type);
                    if (found != null) {
                        return found;
                    }
                }
            }
        }
        return null;
    }

    /** Rethrows a write conflict found in {@code failure} as itself; otherwise returns {@code failure}. */
    public static IOException conflictOr(IOException failure) throws FastPathWriteConflictException {
        FastPathWriteConflictException conflict = find(failure, FastPathWriteConflictException.class);
        if (conflict != null && conflict != failure) {
            FastPathWriteConflictException thrown = new FastPathWriteConflictException(conflict.getMessage());
            thrown.initCause(failure);
            throw thrown;
        }
        if (conflict != null) {
            throw conflict;
        }
        return failure;
    }
}
