package dev.zaelimiter.store.dynamodb;

import dev.zaelimiter.Entity;
import dev.zaelimiter.Lease;
import dev.zaelimiter.Limit;
import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.StoreUnavailableException;
import dev.zaelimiter.Unavailable;
import dev.zaelimiter.ValidationException;
import dev.zaelimiter.testing.MutableClock;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.exception.ApiCallTimeoutException;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;
import software.amazon.awssdk.awscore.AwsRequest;
import software.amazon.awssdk.awscore.AwsRequestOverrideConfiguration;
import software.amazon.awssdk.services.dynamodb.model.ResourceNotFoundException;

import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Every request the store makes carries its deadline, whatever client the application hands it, and a request past
 * the deadline fails the store call with {@link StoreUnavailableException} instead of hanging.
 */
class DynamoDbDeadlineTest {

    private final MutableClock clock = MutableClock.start();
    private final Queue<Socket> accepted = new ConcurrentLinkedQueue<>();
    private ServerSocket silent;

    @AfterEach
    void closeSilentServer() throws IOException {
        if (silent != null) {
            silent.close();
        }
        for (Socket socket : accepted) {
            socket.close();
        }
    }

    /** Records the deadline of every request, as the SDK sees it before sending. */
    static final class Deadlines implements ExecutionInterceptor {

        final Queue<String> seen = new ConcurrentLinkedQueue<>();

        @Override
        public void beforeExecution(Context.BeforeExecution context, ExecutionAttributes attributes) {
            AwsRequest request = (AwsRequest) context.request();
            String name = request.getClass().getSimpleName().replace("Request", "");
            seen.add(name + " " + request.overrideConfiguration()
                    .map(o -> o.apiCallTimeout().map(Duration::toMillis).orElse(-1L) + "/"
                            + o.apiCallAttemptTimeout().map(Duration::toMillis).orElse(-1L))
                    .orElse("none"));
        }
    }

    @Test
    void everyRequestOfEveryCallPathCarriesTheDeadline() {
        Deadlines deadlines = new Deadlines();
        DynamoDbStore store = DynamoDbStore.builder().client(Dynalite.get().client(deadlines))
                .table("t-" + getClass().getSimpleName()).namespace("deadline").clock(clock)
                .requestTimeout(Duration.ofMillis(750)).build();
        store.createTableIfMissing();
        RateLimiter limiter = RateLimiter.builder().store(store).clock(clock).build();
        limiter.admin().createEntity(new Entity("org", null, null, false));
        limiter.admin().createEntity(new Entity("key", null, "org", true));
        limiter.admin().setResourceDefaults("api", List.of(Limit.perMinute("rpm", 2)));
        try (Lease lease = limiter.acquire("key", "api", Map.of("rpm", 1L))) {
            lease.adjust("rpm", 1);
        }
        limiter.checkAvailability("key", "api", Map.of("rpm", 1L));
        limiter.inspect("key", "api");
        limiter.admin().children("org");
        limiter.admin().resetBucket("key", "api");
        limiter.admin().deleteEntity("key");

        assertThat(deadlines.seen).extracting(s -> s.substring(0, s.indexOf(' ')))
                .contains("DescribeTable", "UpdateTimeToLive", "PutItem", "UpdateItem", "BatchGetItem", "GetItem",
                        "Query", "DeleteItem", "BatchWriteItem");
        List<String> seen = List.copyOf(deadlines.seen);
        assertThat(seen.get(0)).as("the first request, of a cold client").isEqualTo("DescribeTable 5000/5000");
        assertThat(seen.subList(1, seen.size())).allSatisfy(s -> assertThat(s).endsWith(" 750/750"));
        assertThat(store.requestTimeout()).isEqualTo(Duration.ofMillis(750));
    }

    @Test
    void theDefaultDeadlineIsHalfASecond() {
        DynamoDbStore store = DynamoDbStore.builder().client(Dynalite.get().client()).build();
        assertThat(store.requestTimeout()).isEqualTo(Duration.ofMillis(500)).isEqualTo(
                DynamoDbStore.DEFAULT_REQUEST_TIMEOUT);
    }

    @Test
    void requestsBeforeTheFirstAnswerGetTheWarmUpDeadlineAndAShorterOneOnARequestIsKept() {
        DeadlineDynamoDbClient client = new DeadlineDynamoDbClient(Dynalite.get().client(), Duration.ofMillis(500));
        var given = AwsRequestOverrideConfiguration.builder().apiCallTimeout(Duration.ofMillis(100)).build();
        assertThat(client.bounded(null).apiCallTimeout()).contains(Duration.ofSeconds(5));

        assertThatThrownBy(() -> client.describeTable(b -> b.tableName("no-such-table")))
                .isInstanceOf(ResourceNotFoundException.class);             // an answer all the same
        assertThat(client.warm()).isTrue();
        assertThat(client.bounded(null).apiCallTimeout()).contains(Duration.ofMillis(500));
        var bounded = client.bounded(given);
        assertThat(bounded.apiCallTimeout()).contains(Duration.ofMillis(100));
        assertThat(bounded.apiCallAttemptTimeout()).contains(Duration.ofMillis(500));
    }

    @Test
    void theDeadlineMustBePositive() {
        for (Duration bad : new Duration[] {Duration.ZERO, Duration.ofMillis(-1), null}) {
            assertThatThrownBy(() -> DynamoDbStore.builder().requestTimeout(bad))
                    .isInstanceOfSatisfying(ValidationException.class,
                            e -> assertThat(e.field()).isEqualTo("requestTimeout"));
        }
    }

    /**
     * A server that accepts connections and never answers, like a stopped process: with the SDK's defaults a call
     * waits for the socket timeout (30 s on the Apache client); with the deadline it fails within it.
     */
    @Test
    @Timeout(60)
    void aServerThatNeverAnswersFailsTheCallWithinTheDeadline() throws IOException {
        DynamoDbStore store = DynamoDbStore.builder().client(silentClient()).table("silent").clock(clock)
                .requestTimeout(Duration.ofMillis(200)).warmUpTimeout(Duration.ofMillis(200)).build();
        RateLimiter strict = RateLimiter.builder().store(store).clock(clock).build();
        RateLimiter lenient = RateLimiter.builder().store(store).clock(clock).onUnavailable(Unavailable.ALLOW)
                .build();

        long started = System.nanoTime();
        assertThatThrownBy(() -> strict.acquire("user-1", "api", Map.of("rpm", 1L)))
                .isInstanceOf(StoreUnavailableException.class)
                .hasRootCauseInstanceOf(ApiCallTimeoutException.class);
        assertThat(lenient.acquire("user-1", "api", Map.of("rpm", 1L)).degraded()).isTrue();
        assertThatThrownBy(() -> strict.admin().getSystemDefaults())
                .isInstanceOf(StoreUnavailableException.class);
        // generous: the SDK's socket timeout is 30 s; each of these three calls has a 0.2 s deadline
        assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(20));
        assertThat(store.timeouts()).isEqualTo(3);
    }

    private DynamoDbClient silentClient() throws IOException {
        silent = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
        Thread acceptor = new Thread(() -> {
            try {
                while (true) {
                    accepted.add(silent.accept());
                }
            } catch (IOException closed) {
                // the test is over
            }
        }, "silent-server");
        acceptor.setDaemon(true);
        acceptor.start();
        return DynamoDbClient.builder()
                .endpointOverride(URI.create("http://127.0.0.1:" + silent.getLocalPort()))
                .region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")))
                .build();
    }
}
