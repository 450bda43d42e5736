package io.phoenixtxn.tm.ha;

/**
 * The TM's ZooKeeper layout under one configurable base path. Everything is persistent except the primary's
 * advertisement, which is ephemeral so that it disappears with the session of a TM that died.
 *
 * <pre>
 *   base/timestamp        max reserved timestamp (8 bytes) + token of its writer (epoch reservations, CAS by
 *                         znode version; see ReservationCodec)
 *   base/fences/&lt;table&gt;  8-byte max fence timestamp of one table id
 *   base/lease            holder id of the primary lease ("" = released), CAS by znode version
 *   base/tm/primary       EPHEMERAL "host:port#epoch" of the serving primary
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
}
