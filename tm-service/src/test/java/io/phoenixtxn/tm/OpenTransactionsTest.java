package io.phoenixtxn.tm;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class OpenTransactionsTest {
    private final AtomicLong nanos = new AtomicLong(1_000);
    private final AtomicLong last = new AtomicLong(100);

    private long begin(OpenTransactions open) throws TmException {
        return open.issueAndRegister(last::get, () -> last.addAndGet(10));
    }

    @Test
    void theHorizonIsTheOldestOpenTransactionOrJustAboveTheLastTimestamp() throws Exception {
        OpenTransactions open = new OpenTransactions(1_000, nanos::get);
        assertEquals(101, open.horizon(last.get()), "nothing open: everything issued so far is done");
        long a = begin(open);
        long b = begin(open);
        assertEquals(a, open.horizon(last.get()));
        open.finish(a);
        assertEquals(b, open.horizon(last.get()));
        open.finish(b);
        assertEquals(last.get() + 1, open.horizon(last.get()));
        assertEquals(0, open.size());
    }

    @Test
    void aLeaseThatRunsOutReleasesTheHorizonAndARenewalHoldsIt() throws Exception {
        OpenTransactions open = new OpenTransactions(1_000, nanos::get); // 1 s
        long renewed = begin(open);
        long abandoned = begin(open);
        nanos.addAndGet(600_000_000L);
        assertTrue(open.renew(renewed));
        nanos.addAndGet(600_000_000L); // abandoned: 1.2 s without a word
        assertFalse(open.isOpen(abandoned));
        assertTrue(open.isOpen(renewed));
        assertEquals(renewed, open.horizon(last.get()));
        assertFalse(open.renew(abandoned), "expired transactions are gone, renewing cannot revive them");
        nanos.addAndGet(2_000_000_000L);
        assertEquals(last.get() + 1, open.horizon(last.get()));
    }

    @Test
    void manyTransactionsComeAndGo() throws Exception {
        OpenTransactions open = new OpenTransactions(60_000, nanos::get);
        List<Long> ids = new ArrayList<>();
        for (int i = 0; i < 10_000; i++) {
            ids.add(begin(open));
        }
        for (int i = 0; i < ids.size(); i += 2) {
            open.finish(ids.get(i));
        }
        assertEquals(5_000, open.size());
        assertEquals(ids.get(1), open.horizon(last.get()));
        for (int i = 1; i < ids.size(); i += 2) {
            assertTrue(open.isOpen(ids.get(i)));
            open.finish(ids.get(i));
        }
        assertEquals(0, open.size());
    }

    /**
     * The horizon never passes a transaction that is open, even one whose timestamp was drawn while the horizon was
     * being computed: every horizon published before or after a begin returned is at most its timestamp.
     */
    @Test
    void aHorizonComputedConcurrentlyWithBeginsNeverPassesAnOpenTransaction() throws Exception {
        OpenTransactions open = new OpenTransactions(60_000, System::nanoTime);
        AtomicLong clock = new AtomicLong(1);
        AtomicLong published = new AtomicLong();
        AtomicBoolean stop = new AtomicBoolean();
        ExecutorService pool = Executors.newFixedThreadPool(5);
        CountDownLatch go = new CountDownLatch(1);
        try {
            Future<?> horizons = pool.submit(() -> {
                go.await();
                while (!stop.get()) {
                    long h = open.horizon(clock.get());
                    published.accumulateAndGet(h, Math::max);
                }
                return null;
            });
            List<Future<Long>> begins = new ArrayList<>();
            for (int t = 0; t < 4; t++) {
                begins.add(pool.submit(() -> {
                    go.await();
                    long violations = 0;
                    for (int i = 0; i < 100_000; i++) {
                        long ts = open.issueAndRegister(clock::get, clock::incrementAndGet);
                        if (published.get() > ts) {
                            violations++;
                        }
                        open.finish(ts);
                    }
                    return violations;
                }));
            }
            go.countDown();
            long violations = 0;
            for (Future<Long> f : begins) {
                violations += f.get(50, TimeUnit.SECONDS);
            }
            stop.set(true);
            horizons.get(10, TimeUnit.SECONDS);
            assertEquals(0, violations, "a horizon passed a transaction that was still open");
        } finally {
            pool.shutdownNow();
        }
    }
}
