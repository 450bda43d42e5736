package io.phoenixtxn.it.jdbc;

import io.phoenixtxn.it.SharedStack;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static io.phoenixtxn.it.jdbc.Sql.commitAll;
import static io.phoenixtxn.it.jdbc.Sql.open;
import static io.phoenixtxn.it.jdbc.Sql.rows;
import static io.phoenixtxn.it.jdbc.Sql.update;
import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * A row deleted and re-inserted in one transaction (found by these ITs, fixed by stepping the write pointer:
 * {@code Transaction.versionForPut}).
 */
@Timeout(value = 2, unit = TimeUnit.MINUTES)
class JdbcDeleteReinsertIT {
    @BeforeAll
    static void stack() {
        SharedStack.get();
    }

    /**
     * DELETE of a row, sent to HBase (any later statement sends it), then UPSERT of the same row in the same
     * transaction with no checkpoint in between. The row delete is a family-delete marker, which masks cells of
     * equal or lower order (HBase's equal-timestamp rule); written at the same write pointer, the re-insert would be
     * lost, so the client steps the write pointer before it.
     */
    @Test
    void reinsertingARowDeletedEarlierInTheSameTransactionKeepsTheNewRow() throws SQLException {
        String t = Sql.createTable("REINSERT", "K BIGINT PRIMARY KEY, V VARCHAR, N BIGINT");
        commitAll("UPSERT INTO " + t + " VALUES (1, 'one', 1)", "UPSERT INTO " + t + " VALUES (2, 'two', 2)");
        try (Connection c = open(false)) {
            update(c, "DELETE FROM " + t + " WHERE K IN (1, 2)");
            assertEquals(List.of(), rows(c, "SELECT * FROM " + t)); // sends the deletes
            update(c, "UPSERT INTO " + t + " VALUES (1, 'again', 10)");
            update(c, "UPSERT INTO " + t + " (K, V) VALUES (2, 'partial')");
            assertEquals(List.of("1|again|10", "2|partial|null"), rows(c, "SELECT * FROM " + t + " ORDER BY K"),
                    "read-your-own-writes after delete + re-insert");
            c.commit();
        }
        try (Connection check = open(false)) {
            assertEquals(List.of("1|again|10", "2|partial|null"),
                    rows(check, "SELECT * FROM " + t + " ORDER BY K"), "the committed re-insert was lost");
        }
    }
}
