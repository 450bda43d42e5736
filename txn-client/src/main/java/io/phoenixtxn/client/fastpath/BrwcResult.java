package io.phoenixtxn.client.fastpath;

import org.apache.hadoop.hbase.client.Result;

/**
 * What brwc returns: whether its function wrote ({@code applied}); the cells it wrote, or, when it wrote nothing, the
 * latest committed cells of the columns it read; and the version: the write's commit version, or the row's newest
 * committed version when nothing was written.
 */
public record BrwcResult(boolean applied, Result result, long version) {
}
