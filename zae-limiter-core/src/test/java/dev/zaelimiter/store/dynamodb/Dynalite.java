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
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * The test server: one dynalite process per test JVM, started on first use on a free port, stopped when the JVM
 * exits (and by itself when the JVM's pipe to it closes). The build installs it with {@code npm ci}.
 */
public final class Dynalite {

    private static Dynalite instance;

    private final Process process;
    private final int port;

    private Dynalite(Process process, int port) {
        this.process = process;
        this.port = port;
    }

    /** The running server, started on first call. */
    public static synchronized Dynalite get() {
        if (instance == null) {
            instance = start();
        }
        return instance;
    }

    private static Dynalite start() {
        Path dir = locate();
        if (!Files.isDirectory(dir.resolve("node_modules/dynalite"))) {
            throw new IllegalStateException("dynalite is not installed in " + dir
                    + "; run 'mvn generate-test-resources' (the build runs 'npm ci' there)");
        }
        try {
            Process process = new ProcessBuilder("node", "server.js").directory(dir.toFile())
                    .redirectError(ProcessBuilder.Redirect.INHERIT).start();
            BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(),
                    StandardCharsets.UTF_8));
            String line = out.readLine();
            if (line == null || !line.startsWith("PORT ")) {
                process.destroyForcibly();
                throw new IllegalStateException("dynalite did not start: " + line);
            }
            int port = Integer.parseInt(line.substring(5).trim());
            Runtime.getRuntime().addShutdownHook(new Thread(() -> stop(process)));
            return new Dynalite(process, port);
        } catch (IOException e) {
            throw new IllegalStateException("could not start dynalite with 'node' from " + dir, e);
        }
    }

    private static void stop(Process process) {
        process.destroy();
        try {
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The directory of {@code server.js} and its {@code node_modules}. */
    static Path locate() {
        for (Path candidate : new Path[] {Path.of("src/test/dynalite"), Path.of("zae-limiter-core/src/test/dynalite"),
                Path.of("../zae-limiter-core/src/test/dynalite")}) {
            if (Files.isDirectory(candidate)) {
                return candidate.toAbsolutePath();
            }
        }
        throw new IllegalStateException("cannot find src/test/dynalite from " + Path.of("").toAbsolutePath());
    }

    public URI endpoint() {
        return URI.create("http://127.0.0.1:" + port);
    }

    public long pid() {
        return process.pid();
    }

    /** A client for the server, with the given interceptors. */
    public DynamoDbClient client(ExecutionInterceptor... interceptors) {
        return DynamoDbClient.builder()
                .endpointOverride(endpoint())
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")))
                .overrideConfiguration(c -> {
                    for (ExecutionInterceptor interceptor : interceptors) {
                        c.addExecutionInterceptor(interceptor);
                    }
                })
                .build();
    }
}
