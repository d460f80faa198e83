package dev.zaelimiter.store.dynamodb;

import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

import java.time.Clock;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;

/** Stores for tests: one table per test class on the shared dynalite, a fresh namespace per store. */
public final class DynamoDbTestStores {

    private static final DynamoDbClient CLIENT = Dynalite.get().client();
    private static final Map<Class<?>, String> TABLES = new ConcurrentHashMap<>();
    private static final AtomicInteger NAMESPACES = new AtomicInteger();

    private DynamoDbTestStores() {
    }

    /** The table of {@code testClass}, created on first use. */
    public static String table(Class<?> testClass) {
        return TABLES.computeIfAbsent(testClass, c -> {
            String table = "t-" + c.getSimpleName();
            DynamoDbStore.builder().client(CLIENT).table(table).build().createTableIfMissing();
            return table;
        });
    }

    /** A store on the table of {@code testClass}, in a namespace no other store uses. */
    public static DynamoDbStore newStore(Class<?> testClass, Clock clock) {
        return builder(testClass, clock).build();
    }

    public static DynamoDbStore.Builder builder(Class<?> testClass, Clock clock) {
        return DynamoDbStore.builder().client(CLIENT).table(table(testClass))
                .namespace("ns" + NAMESPACES.incrementAndGet()).clock(clock);
    }

    public static DynamoDbClient client() {
        return CLIENT;
    }
}
