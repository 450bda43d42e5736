package io.phoenixtxn.tm.net;

/** A TM at a fixed address without HA: the primary never changes and its epoch is unknown (0). */
public final class StaticEndpointResolver implements TmEndpointResolver {
    private final TmEndpoint endpoint;

    public StaticEndpointResolver(String host, int port) {
        this.endpoint = new TmEndpoint(host, port, 0);
    }

    @Override
    public TmEndpoint current() {
        return endpoint;
    }

    /** The primary of a static resolver never changes, so listeners are never called and need not be kept. */
    @Override
    public void onChange(Runnable listener) {
    }

    @Override
    public void close() {
    }

    @Override
    public String toString() {
        return "static TM endpoint " + endpoint.address();
    }
}
