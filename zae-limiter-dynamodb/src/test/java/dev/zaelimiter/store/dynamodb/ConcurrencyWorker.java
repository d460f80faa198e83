package dev.zaelimiter.store.dynamodb;

import dev.zaelimiter.RateLimitExceededException;
import dev.zaelimiter.RateLimiter;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A second process for {@link DynamoDbMultiProcessTest}: acquires from one bucket with many threads and prints how
 * many calls were admitted. Arguments: endpoint table namespace threads callsPerThread epochMillis.
 */
public final class ConcurrencyWorker {

    private ConcurrencyWorker() {
    }

    public static void main(String[] args) throws Exception {
        URI endpoint = URI.create(args[0]);
        int threads = Integer.parseInt(args[3]);
        int calls = Integer.parseInt(args[4]);
        Clock frozen = Clock.fixed(Instant.ofEpochMilli(Long.parseLong(args[5])), ZoneOffset.UTC);
        DynamoDbClient client = DynamoDbClient.builder().endpointOverride(endpoint).region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")))
                .build();
        DynamoDbStore store = DynamoDbStore.builder().client(client).table(args[1]).namespace(args[2])
                .clock(frozen).requestTimeout(Duration.ofSeconds(10)).build();
        RateLimiter limiter = RateLimiter.builder().store(store).clock(frozen).build();

        System.out.println("READY");
        System.out.flush();
        new BufferedReader(new InputStreamReader(System.in)).readLine();

        AtomicLong admitted = new AtomicLong();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        List<Future<?>> done = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            done.add(pool.submit(() -> {
                for (int i = 0; i < calls; i++) {
                    try {
                        limiter.acquire("user-1", "api", Map.of("rpm", 1L));
                        admitted.incrementAndGet();
                    } catch (RateLimitExceededException rejected) {
                        // counted by omission
                    }
                }
            }));
        }
        for (Future<?> f : done) {
            f.get();
        }
        pool.shutdown();
        System.out.println("ADMITTED " + admitted.get());
        System.out.flush();
        store.close();
        client.close();
    }
}
