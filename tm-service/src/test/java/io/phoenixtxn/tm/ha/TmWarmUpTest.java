package io.phoenixtxn.tm.ha;

import io.phoenixtxn.tm.TmConfig;
import io.phoenixtxn.tm.net.TmServerConfig;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.util.OptionalInt;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

@Timeout(value = 60, unit = TimeUnit.SECONDS)
class TmWarmUpTest {

    @Test
    void theWarmUpTermRunsToItsEndAndClosesItsServer() {
        OptionalInt port = TmWarmUp.run(TmConfig.from(key -> null), TmServerConfig.defaults());
        assertTrue(port.isPresent(), "a core, a server on a loopback port, a begin and a commit through the network"
                + " client, all closed");
        assertThrows(IOException.class, () -> {
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress("127.0.0.1", port.getAsInt()), 1_000);
            }
        }, "nothing listens on the warm-up's port any more");
    }
}
