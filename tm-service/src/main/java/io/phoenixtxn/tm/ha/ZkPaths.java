package io.phoenixtxn.tm.ha;

/**
 * The TM's ZooKeeper layout under one configurable base path. Everything is persistent except the primary's
 * advertisement and the embedded TMs' markers, which are ephemeral so that they disappear with the session of the
 * process that died. The timestamp node doubles as the cluster's "a TM server was deployed here" flag
 * ({@link TmDeployment}): the first TM server creates it and nothing deletes it.
 *
 * <pre>
 *   base/timestamp          max reserved timestamp (8 bytes) + token of its writer (epoch reservations, CAS by
 *                           znode version; see ReservationCodec); its existence means the cluster has a TM deployment
 *   base/fences/&lt;table&gt;    8-byte max fence timestamp of one table id
 *   base/lease              holder id of the primary lease ("" = released), CAS by znode version
 *   base/tm/primary         EPHEMERAL "host:port#epoch" of the serving primary
 *   base/embedded/&lt;name&gt;   EPHEMERAL marker of a JVM that runs an embedded TM on this cluster (its description);
 *                           a TM server does not become primary while one exists
 * </pre>
 */
public record ZkPaths(String base) {

    public String timestamp() {
        return base + "/timestamp";
    }

    public String fences() {
        return base + "/fences";
    }

    public String fence(long tableId) {
        return fences() + "/" + tableId;
    }

    public String lease() {
        return base + "/lease";
    }

    public String primary() {
        return base + "/tm/primary";
    }

    public String embedded() {
        return base + "/embedded";
    }

    public String embedded(String name) {
        return embedded() + "/" + name;
    }
}
