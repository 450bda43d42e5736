package io.phoenixtxn.stack;

import org.apache.log4j.Level;
import org.apache.log4j.LogManager;
import org.apache.log4j.Logger;
import org.apache.log4j.PropertyConfigurator;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import java.util.concurrent.RejectedExecutionException;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The launchers' logging configuration (conf/phoenix-txn-log4j.properties) routes as its comments say: every line
 * to the file; on the console our warnings and other components' errors, except the shutdown noise it names (ZooKeeper's
 * watcher race, Phoenix's lease-renewal interrupt).
 */
class LauncherLoggingConfigTest {

    private final PrintStream originalErr = System.err;

    @AfterEach
    void restore() {
        System.setErr(originalErr);
        LogManager.resetConfiguration();
        URL defaults = LauncherLoggingConfigTest.class.getClassLoader().getResource("log4j.properties");
        if (defaults != null) {
            PropertyConfigurator.configure(defaults); // the other tests of this JVM log as before
        }
    }

    @Test
    void consoleKeepsErrorsAndOurWarningsAndDropsTheShutdownRaces(@TempDir Path dir) throws Exception {
        Path logFile = dir.resolve("stack.log");
        ByteArrayOutputStream console = new ByteArrayOutputStream();
        System.setErr(new PrintStream(console, true, StandardCharsets.UTF_8));
        configure(logFile);

        Logger zk = Logger.getLogger("org.apache.zookeeper.ClientCnxn");
        zk.error("Error while calling watcher.", new RejectedExecutionException("executor terminated"));
        zk.error("Unable to connect to the ensemble");
        Logger cqsi = Logger.getLogger("org.apache.phoenix.query.ConnectionQueryServicesImpl");
        cqsi.error("Thread interrupted when renewing lease.", new InterruptedException());
        Logger.getLogger("org.apache.hadoop.hbase.master.HMaster").warn("routine warning");
        Logger.getLogger("io.phoenixtxn.tm.Lease").warn("our warning");
        Logger.getLogger("io.phoenixtxn.tm.Lease").info("our info");

        String shown = console.toString(StandardCharsets.UTF_8);
        assertTrue(!shown.contains("calling watcher") && !shown.contains("RejectedExecutionException"), shown);
        assertTrue(!shown.contains("renewing lease") && !shown.contains("InterruptedException"), shown);
        assertTrue(shown.contains("Unable to connect to the ensemble"), "other ZooKeeper errors stay: " + shown);
        assertTrue(shown.contains("our warning"), shown);
        assertTrue(!shown.contains("routine warning") && !shown.contains("our info"), shown);
        assertEquals(2, shown.lines().count(), shown);

        String file = Files.readString(logFile, StandardCharsets.UTF_8);
        for (String line : new String[] {"Error while calling watcher.", "RejectedExecutionException",
                "Thread interrupted when renewing lease.", "InterruptedException",
                "Unable to connect", "routine warning", "our warning", "our info"}) {
            assertTrue(file.contains(line), line + " in the file: " + file);
        }
    }

    private static void configure(Path logFile) throws Exception {
        Properties props = new Properties();
        try (InputStream in = Files.newInputStream(Path.of("..", "conf", "phoenix-txn-log4j.properties"))) {
            props.load(in);
        }
        System.setProperty("phoenix.txn.log.file", logFile.toString());
        try {
            LogManager.resetConfiguration();
            PropertyConfigurator.configure(props);
        } finally {
            System.clearProperty("phoenix.txn.log.file");
        }
        Logger.getRootLogger().setLevel(Level.INFO);
    }
}
