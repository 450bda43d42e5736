package io.phoenixtxn.tm.net;

import io.netty.channel.EventLoopGroup;
import io.netty.util.concurrent.DefaultThreadFactory;
import io.phoenixtxn.tm.TmException;

import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The operators' side of the TM protocol: one short-lived connection that announces the newest protocol version and asks
 * STATUS_REPORT ({@code bin/phoenix-txn-admin status} and {@code transactions}). It begins, commits and fences
 * nothing, so it can never change what the TM decides.
 */
public final class TmAdminClient {
    private TmAdminClient() {
    }

    /**
     * The TM's status report ({@link io.phoenixtxn.tm.TmStatus} lines plus the server's own), bounded by the
     * connect and request timeouts of {@code config}.
     *
     * @throws TmException naming the TM's address and the cause: unreachable, refused, an older TM that does not
     *                     know STATUS_REPORT, or no answer in time
     */
    public static String statusReport(TmEndpoint endpoint, RemoteTmConfig config) throws TmException {
        EventLoopGroup group = Transports.eventLoops(1, new DefaultThreadFactory("phoenix-txn-admin", true));
        AtomicLong requestIds = new AtomicLong();
        long budgetMs = 2L * config.connectTimeoutMs() + 2L * config.requestTimeoutMs();
        ClientConnection connection = null;
        try {
            connection = ClientConnection.open(group, endpoint, config, requestIds::incrementAndGet,
                    Protocol.VERSION).get(budgetMs, TimeUnit.MILLISECONDS);
            Message.Response answer = connection.call(new Message.GetStatusReport(requestIds.incrementAndGet()))
                    .get(budgetMs, TimeUnit.MILLISECONDS);
            if (answer instanceof Message.Report report) {
                return report.text();
            }
            if (answer instanceof Message.ErrorReply error) {
                throw new TmException("The TM at " + endpoint.address() + " refused the status request: "
                        + error.message());
            }
            throw new TmException("Protocol error: the TM at " + endpoint.address() + " answered STATUS_REPORT with "
                    + answer.type());
        } catch (ExecutionException e) {
            // The connection's own TmException already names the address, the cause and the fix.
            for (Throwable c = e.getCause(); c != null; c = c.getCause()) {
                if (c instanceof TmException tm) {
                    throw tm;
                }
            }
            Throwable cause = Failures.unwrap(e);
            throw new TmException("Status request to the TM at " + endpoint.address() + " failed: "
                    + Failures.describe(cause), cause);
        } catch (TimeoutException e) {
            throw new TmException("The TM at " + endpoint.address() + " did not answer within " + budgetMs
                    + " ms; check that it is running and not paused", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new TmException("Interrupted while asking the TM at " + endpoint.address() + " for its status", e);
        } finally {
            if (connection != null) {
                connection.close("the status request is done");
            }
            group.shutdownGracefully(0, TmServer.CLOSE_TIMEOUT_MS, TimeUnit.MILLISECONDS)
                    .awaitUninterruptibly(2 * TmServer.CLOSE_TIMEOUT_MS);
        }
    }
}
