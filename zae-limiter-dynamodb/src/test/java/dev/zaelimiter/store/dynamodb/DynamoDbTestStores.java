package dev.zaelimiter.store.dynamodb;

import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

import java.time.Clock;
import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/** Stores for tests: one table per test class on the shared dynalite, a fresh namespace per store. */
public final class DynamoDbTestStores {

    /**
     * The request deadline of test stores: long, so that a test on a loaded machine never fails because one request
     * of dynalite was slow. {@code DynamoDbDeadlineTest} and {@code DynamoDbFaultTest} test the deadline itself.
     */
    public static final Duration REQUEST_TIMEOUT = Duration.ofSeconds(10);

    private static final DynamoDbClient CLIENT = Dynalite.get().client(IamActions.RECORDER);
    private static final Map<Class<?>, String> TABLES = new ConcurrentHashMap<>();
    private static final AtomicInteger NAMESPACES = new AtomicInteger();

    private DynamoDbTestStores() {
    }

    /** The table of {@code testClass}, created on first use. */
    public static String table(Class<?> testClass) {
        return TABLES.computeIfAbsent(testClass, c -> {
            String table = "t-" + c.getSimpleName();
            DynamoDbStore.builder().client(CLIENT).table(table).requestTimeout(REQUEST_TIMEOUT).build()
                    .createTableIfMissing();
            return table;
        });
    }

    /** A store on the table of {@code testClass}, in a namespace no other store uses. */
    public static DynamoDbStore newStore(Class<?> testClass, Clock clock) {
        return builder(testClass, clock).build();
    }

    public static DynamoDbStore.Builder builder(Class<?> testClass, Clock clock) {
        return DynamoDbStore.builder().client(CLIENT).table(table(testClass)).requestTimeout(REQUEST_TIMEOUT)
                .namespace("ns" + NAMESPACES.incrementAndGet()).clock(clock);
    }

    public static DynamoDbClient client() {
        return CLIENT;
    }
}
