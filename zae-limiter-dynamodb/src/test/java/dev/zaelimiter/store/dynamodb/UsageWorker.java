package dev.zaelimiter.store.dynamodb;

import dev.zaelimiter.RateLimitExceededException;
import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.testing.ForwardingStore;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A process for {@link DynamoDbUsageMultiProcessTest}: acquires on the system clock with several threads, flushing
 * usage every 200 ms with its first usage write delivered twice, evicts (resets) a bucket halfway, then closes the
 * limiter (the last flush) and prints what it counted. Arguments: endpoint table namespace threads callsPerThread.
 */
public final class UsageWorker {

    static final List<String> ENTITIES = List.of("user-0", "user-1", "user-2", "tight");

    private UsageWorker() {
    }

    public static void main(String[] args) throws Exception {
        URI endpoint = URI.create(args[0]);
        int threads = Integer.parseInt(args[3]);
        int calls = Integer.parseInt(args[4]);
        DynamoDbClient client = DynamoDbClient.builder().endpointOverride(endpoint).region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")))
                .build();
        DynamoDbStore dynamo = DynamoDbStore.builder().client(client).table(args[1]).namespace(args[2])
                .requestTimeout(Duration.ofSeconds(10)).build();
        ForwardingStore store = new ForwardingStore(dynamo);
        store.duplicateUsageWrites(1);
        RateLimiter limiter = RateLimiter.builder().store(store).usageFlushInterval(Duration.ofMillis(200)).build();

        limiter.acquire("warm-up", "api", Map.of("rpm", 1L)).close();    // a cold client's first request is slow
        System.out.println("READY");
        System.out.flush();
        new BufferedReader(new InputStreamReader(System.in)).readLine();

        AtomicLong admitted = new AtomicLong();
        AtomicLong refused = new AtomicLong();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        List<Future<?>> done = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            int thread = t;
            done.add(pool.submit(() -> {
                for (int i = 0; i < calls; i++) {
                    if (thread == 0 && i == calls / 2) {
                        limiter.admin().resetBucket("user-0", "api");
                    }
                    try {
                        limiter.acquire(ENTITIES.get((i + thread) % ENTITIES.size()), "api", Map.of("rpm", 1L)).close();
                        admitted.incrementAndGet();
                    } catch (RateLimitExceededException rejected) {
                        refused.incrementAndGet();
                    }
                }
            }));
        }
        for (Future<?> f : done) {
            f.get();
        }
        pool.shutdown();
        limiter.close();
        System.out.println("COUNTED " + admitted.get() + " " + refused.get() + " " + store.duplicatedUsageWrites());
        System.out.flush();
        dynamo.close();
        client.close();
    }
}
