package dev.zaelimiter.store.dynamodb;

import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * A dynalite process of one test's own, on disk, for fault injection: {@linkplain #suspend() stopped} with SIGSTOP
 * (a hung store: connections are accepted by the kernel and never answered) and {@linkplain #resume() continued},
 * or {@linkplain #kill() killed} with SIGKILL (a dead store: connections are refused) and {@linkplain #restart()
 * restarted} on the same port and data directory, with its tables.
 */
final class FaultyDynalite implements AutoCloseable {

    private final Path data;
    private final int port;
    private Process process;

    private FaultyDynalite(Path data) {
        this.data = data;
        this.process = launch(0);
        this.port = portOf(process);
    }

    /** Starts a server keeping its tables in {@code data}. */
    static FaultyDynalite start(Path data) {
        return new FaultyDynalite(data);
    }

    private Process launch(int onPort) {
        try {
            return new ProcessBuilder("node", "server.js", Integer.toString(onPort), data.toString())
                    .directory(Dynalite.locate().toFile()).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        } catch (IOException e) {
            throw new IllegalStateException("could not start dynalite with 'node'", e);
        }
    }

    private static int portOf(Process process) {
        try {
            String line = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))
                    .readLine();
            if (line == null || !line.startsWith("PORT ")) {
                process.destroyForcibly();
                throw new IllegalStateException("dynalite did not start: " + line);
            }
            return Integer.parseInt(line.substring(5).trim());
        } catch (IOException e) {
            throw new IllegalStateException("dynalite did not start", e);
        }
    }

    long pid() {
        return process.pid();
    }

    /** A client with the SDK's defaults (no timeouts of its own), as an application would build it. */
    DynamoDbClient client(ExecutionInterceptor... interceptors) {
        return DynamoDbClient.builder()
                .endpointOverride(URI.create("http://127.0.0.1:" + port))
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")))
                .overrideConfiguration(c -> {
                    for (ExecutionInterceptor interceptor : interceptors) {
                        c.addExecutionInterceptor(interceptor);
                    }
                })
                .build();
    }

    /** SIGSTOP: the process stays, its port accepts connections, nothing answers. */
    void suspend() {
        signal("-STOP");
    }

    /** SIGCONT after {@link #suspend()}. */
    void resume() {
        signal("-CONT");
    }

    /** SIGKILL, and waits until the process is gone: connections are refused. */
    void kill() {
        signal("-KILL");
        try {
            if (!process.waitFor(30, TimeUnit.SECONDS)) {
                throw new IllegalStateException("dynalite " + pid() + " survived SIGKILL");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /** Starts the server again after {@link #kill()}, on the same port and data. */
    void restart() {
        process = launch(port);
        int again = portOf(process);
        if (again != port) {
            throw new IllegalStateException("dynalite came back on port " + again + ", not " + port);
        }
    }

    private void signal(String signal) {
        try {
            Process kill = new ProcessBuilder("kill", signal, Long.toString(pid())).inheritIO().start();
            if (!kill.waitFor(30, TimeUnit.SECONDS) || kill.exitValue() != 0) {
                throw new IllegalStateException("kill " + signal + " " + pid() + " failed");
            }
        } catch (IOException e) {
            throw new IllegalStateException("could not run kill " + signal, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    @Override
    public void close() {
        if (process.isAlive()) {
            signal("-CONT");
            process.destroyForcibly();
        }
    }
}
