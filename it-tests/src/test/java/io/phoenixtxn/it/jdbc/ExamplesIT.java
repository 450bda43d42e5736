package io.phoenixtxn.it.jdbc;

import io.phoenixtxn.examples.JdbcExample;
import io.phoenixtxn.it.SharedStack;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The examples keep working: each runs against the shared stack and checks what it claims. */
@Timeout(value = 3, unit = TimeUnit.MINUTES)
class ExamplesIT {
    @Test
    void jdbcExampleKeepsTheTotalBalance() throws Exception {
        assertEquals(200, JdbcExample.run(SharedStack.get().jdbcUrl()));
    }
}
