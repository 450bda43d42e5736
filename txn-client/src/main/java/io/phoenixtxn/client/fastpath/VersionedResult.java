package io.phoenixtxn.client.fastpath;

import org.apache.hadoop.hbase.client.Result;

/**
 * What br returns (VLDB'18 sec. 4.1): the row's latest committed values, and its version, the commit timestamp of its
 * newest committed write (deletes included; 0 when nothing was ever committed). wc with that version writes only if
 * nothing committed to the row since.
 */
public record VersionedResult(Result result, long version) {
}
