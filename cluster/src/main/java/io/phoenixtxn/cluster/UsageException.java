package io.phoenixtxn.cluster;

/** Bad input on the command line: the message says what is wrong and what is accepted (exit status 2). */
public final class UsageException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public UsageException(String message) {
        super(message);
    }
}
