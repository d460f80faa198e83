package dev.zaelimiter.benchmarks;

import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One dynalite process (the test server of {@code zae-limiter-core/src/test/dynalite}), started with {@code node} on a
 * free port and stopped by its own PID on {@link #close()} or JVM exit. Installs it with {@code npm ci} when the
 * core's build has not done so yet (for example after {@code -DskipTests}).
 */
final class DynaliteServer implements AutoCloseable {

    /** Overrides where {@code server.js} and {@code node_modules} are looked for. */
    static final String DIR_PROPERTY = "zae.dynalite.dir";

    private final Process process;
    private final int port;
    private final String version;

    private DynaliteServer(Process process, int port, String version) {
        this.process = process;
        this.port = port;
        this.version = version;
    }

    static DynaliteServer start() {
        Path dir = locate();
        if (!Files.isDirectory(dir.resolve("node_modules/dynalite"))) {
            install(dir);
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
            return new DynaliteServer(process, port, version(dir));
        } catch (IOException e) {
            throw new IllegalStateException("could not start dynalite with 'node' from " + dir, e);
        }
    }

    private static void install(Path dir) {
        try {
            Process npm = new ProcessBuilder("npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund")
                    .directory(dir.toFile()).inheritIO().start();
            if (npm.waitFor() != 0) {
                throw new IllegalStateException("'npm ci' failed in " + dir);
            }
        } catch (IOException e) {
            throw new IllegalStateException("could not run 'npm ci' in " + dir, e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException("interrupted while installing dynalite", e);
        }
    }

    private static Path locate() {
        List<Path> candidates = new ArrayList<>();
        String configured = System.getProperty(DIR_PROPERTY);
        if (configured != null) {
            candidates.add(Path.of(configured));
        }
        candidates.add(Path.of("zae-limiter-core/src/test/dynalite"));
        candidates.add(Path.of("../zae-limiter-core/src/test/dynalite"));
        try {
            // benchmarks/target/zae-limiter-benchmarks.jar or benchmarks/target/classes
            Path code = Path.of(DynaliteServer.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            Path module = code.getParent().getParent();
            if (module.getParent() != null) {
                candidates.add(module.getParent().resolve("zae-limiter-core/src/test/dynalite"));
            }
        } catch (URISyntaxException | RuntimeException ignored) {
            // fall back to the working-directory candidates
        }
        for (Path candidate : candidates) {
            if (Files.isRegularFile(candidate.resolve("server.js"))) {
                return candidate.toAbsolutePath().normalize();
            }
        }
        throw new IllegalStateException("cannot find zae-limiter-core/src/test/dynalite from "
                + Path.of("").toAbsolutePath() + "; run from the repository root or set -D" + DIR_PROPERTY);
    }

    private static String version(Path dir) {
        try {
            String json = Files.readString(dir.resolve("node_modules/dynalite/package.json"));
            Matcher m = Pattern.compile("\"version\"\\s*:\\s*\"([^\"]+)\"").matcher(json);
            return m.find() ? m.group(1) : "?";
        } catch (IOException e) {
            return "?";
        }
    }

    private static void stop(Process process) {
        if (!process.isAlive()) {
            return;
        }
        process.destroy();
        try {
            if (!process.waitFor(5, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    URI endpoint() {
        return URI.create("http://127.0.0.1:" + port);
    }

    String version() {
        return version;
    }

    long pid() {
        return process.pid();
    }

    /** A new client for this server, with its own connection pool and the given interceptors. */
    DynamoDbClient client(ExecutionInterceptor... interceptors) {
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

    @Override
    public void close() {
        stop(process);
    }
}
