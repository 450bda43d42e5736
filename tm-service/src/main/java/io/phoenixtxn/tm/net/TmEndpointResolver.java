package io.phoenixtxn.tm.net;

import io.phoenixtxn.tm.TmException;

/**
 * Tells the TM client where the primary TM is. A fixed address ({@link StaticEndpointResolver}) or a view of the
 * HA election. {@link RemoteTransactionManager} owns the resolver it is given and closes it.
 */
public interface TmEndpointResolver extends AutoCloseable {

    /** Where the primary is now. May block briefly; throws if no primary is known. */
    TmEndpoint current() throws TmException;

    /**
     * Registers a listener called (from any thread) when the primary changes. Listeners must return quickly; the
     * client only schedules work from them and calls {@link #current()} from its own thread.
     */
    void onChange(Runnable listener);

    @Override
    void close();
}
