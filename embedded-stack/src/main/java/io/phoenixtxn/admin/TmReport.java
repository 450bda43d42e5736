package io.phoenixtxn.admin;

import io.phoenixtxn.tm.TmException;
import io.phoenixtxn.tm.TmStatus;
import io.phoenixtxn.tm.ha.HaConfig;
import io.phoenixtxn.tm.ha.TmDeployment;
import io.phoenixtxn.tm.ha.ZooKeeperClients;
import io.phoenixtxn.tm.net.RemoteTmConfig;
import io.phoenixtxn.tm.net.TmAdminClient;
import io.phoenixtxn.tm.net.TmEndpoint;

import java.util.List;
import java.util.Map;

/**
 * The primary TM's status report, found the way clients find the TM: its advertisement in ZooKeeper, then one
 * version-5 connection asking STATUS_REPORT. Says which part is missing when there is no report: ZooKeeper, the
 * advertisement (no TM server, or a failover in progress), or the TM process.
 *
 * @param endpoint where the primary is advertised (its epoch included)
 * @param values   the report, parsed ({@link TmStatus#parse})
 */
record TmReport(TmEndpoint endpoint, Map<String, String> values) {

    static TmReport fetch(AdminTarget target) throws AdminException {
        HaConfig ha = target.haConfig();
        TmDeployment deployment = new TmDeployment(target.zooKeeper(), ha);
        TmEndpoint primary;
        try {
            primary = deployment.advertisedPrimary().orElse(null);
            if (primary == null) {
                List<String> embedded = deployment.embeddedTms();
                String why = deployment.exists()
                        ? "a TM server ran here, none is primary now (stopped, or a failover in progress); start"
                        + " bin/tm-server, or wait " + ha.leaseMs() + " ms (" + HaConfig.LEASE_MS + ") and retry"
                        : embedded.isEmpty()
                        ? "this cluster never ran a TM server; start bin/tm-server, or the stack with --serve"
                        : "this cluster's TMs are embedded in their client JVMs " + embedded + " and serve no"
                        + " status; run the stack with --serve or a bin/tm-server";
                throw new AdminException("no primary TM is advertised at " + ZooKeeperClients.quorum(target.zooKeeper())
                        + ha.paths().primary() + ": "
                        + why + " (" + HaConfig.ZK_PATH + " names another base path)");
            }
        } catch (TmException e) {
            throw new AdminException(AdminTarget.oneLine(e), e);
        }
        try {
            String text = TmAdminClient.statusReport(primary, RemoteTmConfig.from(target.conf()::get));
            return new TmReport(primary, TmStatus.parse(text));
        } catch (TmException e) {
            throw new AdminException("the primary TM advertised at " + deployment.where() + " is unreachable: "
                    + AdminTarget.oneLine(e), e);
        }
    }

    String get(String key) {
        return values.getOrDefault(key, "?");
    }

    long number(String key) {
        try {
            return Long.parseLong(values.get(key));
        } catch (RuntimeException e) {
            return -1;
        }
    }
}
