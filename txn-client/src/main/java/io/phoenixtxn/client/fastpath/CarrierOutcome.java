package io.phoenixtxn.client.fastpath;

import org.apache.hadoop.hbase.CallQueueTooBigException;
import org.apache.hadoop.hbase.NotServingRegionException;
import org.apache.hadoop.hbase.RegionTooBusyException;
import org.apache.hadoop.hbase.ipc.FailedServerException;
import org.apache.hadoop.hbase.ipc.ServerNotRunningYetException;
import org.apache.hadoop.hbase.regionserver.RegionServerStoppedException;

import java.net.ConnectException;

/**
 * Whether a failed carrier RPC (one attempt, HBase client retries off) certainly did not write: the region server
 * refused it before running it (the region is not served there, or is closing or opening; the server or its call
 * queue is not taking calls), or the connection was never made. Only then may the write be sent again: HBase's nonces,
 * which would stop a resent write from applying twice, do not survive a region move, split or merge. Every other
 * failure (a timeout, a connection lost after sending, an error after the write ran) leaves the outcome unknown.
 */
final class CarrierOutcome {
    private CarrierOutcome() {
    }

    static boolean certainlyNotApplied(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause() == t ? null : t.getCause()) {
            if (t instanceof NotServingRegionException // RegionMovedException, RegionOpeningException among them
                    || t instanceof RegionTooBusyException
                    || t instanceof CallQueueTooBigException
                    || t instanceof ServerNotRunningYetException
                    || t instanceof RegionServerStoppedException // RegionServerAbortedException too
                    || t instanceof FailedServerException // the client did not send it: the server failed lately
                    || t instanceof ConnectException) {
                return true;
            }
        }
        return false;
    }
}
