package io.phoenixtxn.tm.net;

import io.phoenixtxn.tm.TmConfig;
import io.phoenixtxn.tm.TmException;
import io.phoenixtxn.tm.TransactionManager;
import io.phoenixtxn.tm.TransactionManagerCore;

import java.util.Map;

/** Builders shared by the network tests. */
final class NetTestSupport {
    private NetTestSupport() {
    }

    static TransactionManagerCore newCore() {
        return TransactionManagerCore.startInMemory(TmConfig.defaults().withConflictEntries(1 << 16));
    }

    /** A core whose write sets may hold at most {@code maxRows} rows. */
    static TransactionManagerCore newCoreWithMaxWriteSet(int maxRows) {
        Map<String, String> keys = Map.of(TmConfig.MAX_WRITE_SET, Integer.toString(maxRows));
        return TransactionManagerCore.startInMemory(TmConfig.from(keys::get).withConflictEntries(1 << 16));
    }

    /** Loopback, ephemeral port, small frames so oversize tests stay cheap. */
    static TmServerConfig serverConfig() {
        return TmServerConfig.defaults().withPort(0).withMaxFrameBytes(64 * 1024).withIoThreads(2)
                .withWorkerThreads(4);
    }

    static TmServer startServer(TransactionManager tm) throws TmException {
        return TmServer.start(tm, serverConfig());
    }

    static RemoteTmConfig clientConfig() {
        return RemoteTmConfig.defaults().withMaxFrameBytes(64 * 1024).withConnectTimeoutMs(2_000)
                .withRequestTimeoutMs(5_000);
    }

    static RemoteTransactionManager connect(TmServer server) throws TmException {
        return connect(server, clientConfig());
    }

    static RemoteTransactionManager connect(TmServer server, RemoteTmConfig config) throws TmException {
        return RemoteTransactionManager.connect(resolver(server), config);
    }

    static StaticEndpointResolver resolver(TmServer server) {
        return new StaticEndpointResolver(server.address().getHostString(), server.address().getPort());
    }

    static TmEndpoint endpoint(TmServer server, long epoch) {
        return new TmEndpoint(server.address().getHostString(), server.address().getPort(), epoch);
    }
}
