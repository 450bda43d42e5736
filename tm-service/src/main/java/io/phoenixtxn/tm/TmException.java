package io.phoenixtxn.tm;

import java.io.IOException;

/** The TM could not answer (unreachable, shutting down, lost its lease). The transaction's fate is unknown to it. */
public class TmException extends IOException {
    private static final long serialVersionUID = 1L;

    public TmException(String message) {
        super(message);
    }

    public TmException(String message, Throwable cause) {
        super(message, cause);
    }
}
