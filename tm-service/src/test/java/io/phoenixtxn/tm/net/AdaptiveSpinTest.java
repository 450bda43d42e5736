package io.phoenixtxn.tm.net;

import io.netty.channel.SelectStrategy;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;

/** The event loops' polling window: poll while work came recently, sleep otherwise; a window of 0 never polls. */
class AdaptiveSpinTest {

    @Test
    void pollsWithinTheWindowAfterWorkAndSleepsOtherwise() throws Exception {
        SelectStrategy noWindow = AdaptiveSpin.factory(0).newSelectStrategy();
        assertEquals(SelectStrategy.SELECT, noWindow.calculateStrategy(() -> 0, false));
        assertEquals(3, noWindow.calculateStrategy(() -> 3, true), "tasks: look without blocking, as Netty does");

        SelectStrategy window = AdaptiveSpin.factory(AdaptiveSpin.MAX_WINDOW_MICROS).newSelectStrategy();
        assertEquals(2, window.calculateStrategy(() -> 2, false), "ready events are processed at once");
        assertEquals(SelectStrategy.CONTINUE, window.calculateStrategy(() -> 0, false),
                "nothing ready right after work: poll again");

        SelectStrategy idle = AdaptiveSpin.factory(1).newSelectStrategy();
        idle.calculateStrategy(() -> 1, false);
        long until = System.nanoTime() + 5_000_000;
        int strategy;
        do {
            strategy = idle.calculateStrategy(() -> 0, false);
        } while (strategy == SelectStrategy.CONTINUE && System.nanoTime() < until);
        assertEquals(SelectStrategy.SELECT, strategy, "past the 1 us window: sleep");
    }
}
