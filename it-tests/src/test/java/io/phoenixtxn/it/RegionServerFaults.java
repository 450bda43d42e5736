package io.phoenixtxn.it;

import java.util.ArrayList;
import java.util.List;

import org.apache.hadoop.hbase.HBaseTestingUtility;
import org.apache.hadoop.hbase.MiniHBaseCluster;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.regionserver.HRegionServer;
import org.apache.hadoop.hbase.util.JVMClusterUtil;

/** Region servers of a minicluster by name: find one, list the live ones, crash one (ITs that kill and move). */
public final class RegionServerFaults {
    private RegionServerFaults() {
    }

    public static HRegionServer regionServer(HBaseTestingUtility hbase, ServerName server) {
        for (JVMClusterUtil.RegionServerThread rst : hbase.getMiniHBaseCluster().getLiveRegionServerThreads()) {
            if (rst.getRegionServer().getServerName().equals(server)) {
                return rst.getRegionServer();
            }
        }
        throw new IllegalStateException(server + " is not a live region server");
    }

    /** Region servers running now (not aborted or stopped), sorted. */
    public static List<ServerName> liveServers(HBaseTestingUtility hbase) {
        List<ServerName> servers = new ArrayList<>();
        for (JVMClusterUtil.RegionServerThread rst : hbase.getMiniHBaseCluster().getLiveRegionServerThreads()) {
            if (!rst.getRegionServer().isAborted() && !rst.getRegionServer().isStopped()) {
                servers.add(rst.getRegionServer().getServerName());
            }
        }
        servers.sort(null);
        return servers;
    }

    /** Aborts {@code server} (a crash: no region handed over) and waits until the master no longer lists it. */
    public static void crash(HBaseTestingUtility hbase, ServerName server, long waitMs) throws Exception {
        MiniHBaseCluster cluster = hbase.getMiniHBaseCluster();
        List<JVMClusterUtil.RegionServerThread> threads = cluster.getRegionServerThreads();
        for (int i = 0; i < threads.size(); i++) {
            if (threads.get(i).getRegionServer().getServerName().equals(server)) {
                cluster.abortRegionServer(i);
                cluster.waitOnRegionServer(i);
                break;
            }
        }
        hbase.waitFor(waitMs, () -> !liveServers(hbase).contains(server)
                && !cluster.getMaster().getServerManager().getOnlineServersList().contains(server));
    }
}
