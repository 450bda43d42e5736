package io.phoenixtxn.tm.net;

/**
 * Where a TM primary listens, and the base of its timestamp epoch (the highest timestamp an earlier primary may
 * have issued; 0 if unknown). A timestamp at or below the epoch cannot come from this primary: the client uses the
 * epoch to discard late answers from a deposed one.
 */
public record TmEndpoint(String host, int port, long epoch) {

    public TmEndpoint {
        if (host == null || host.isBlank()) {
            throw new IllegalArgumentException("TM endpoint host is empty; set the TM server's host name");
        }
        if (port < 1 || port > 65_535) {
            throw new IllegalArgumentException("TM endpoint port " + port + " is not a TCP port (1..65535)");
        }
        if (epoch < 0) {
            throw new IllegalArgumentException("TM endpoint epoch " + epoch + " is negative");
        }
    }

    /** host:port, as it appears in error messages. */
    public String address() {
        return host + ":" + port;
    }

    @Override
    public String toString() {
        return address() + " (epoch " + epoch + ")";
    }
}
