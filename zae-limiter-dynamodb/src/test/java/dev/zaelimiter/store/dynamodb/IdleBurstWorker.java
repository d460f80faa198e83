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
import java.nio.charset.StandardCharsets;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A process for {@link DynamoDbRealClockMultiProcessTest}, on the system clock: takes one token when told
 * {@code WARM}, then on {@code GO} acquires with many threads for a while and prints how many calls were admitted
 * and the wall-clock span they were made in. Arguments: endpoint table namespace threads runMillis.
 */
public final class IdleBurstWorker {

    private IdleBurstWorker() {
    }

    public static void main(String[] args) throws Exception {
        URI endpoint = URI.create(args[0]);
        int threads = Integer.parseInt(args[3]);
        long runMillis = Long.parseLong(args[4]);
        DynamoDbClient client = DynamoDbClient.builder().endpointOverride(endpoint).region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")))
                .build();
        // a slow request on a loaded machine is waited for, not failed: this test counts admissions
        DynamoDbStore store = DynamoDbStore.builder().client(client).table(args[1]).namespace(args[2])
                .requestTimeout(java.time.Duration.ofSeconds(10)).build();
        RateLimiter limiter = RateLimiter.builder().store(store).clock(Clock.systemUTC()).build();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));

        System.out.println("READY");
        System.out.flush();
        in.readLine();
        limiter.acquire("user-1", "api", Map.of("r", 1L)).close();
        System.out.println("WARMED");
        System.out.flush();
        in.readLine();

        AtomicLong admitted = new AtomicLong();
        long start = System.currentTimeMillis();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        List<Future<?>> done = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            done.add(pool.submit(() -> {
                while (System.currentTimeMillis() - start < runMillis) {
                    try {
                        limiter.acquire("user-1", "api", Map.of("r", 1L)).close();
                        admitted.incrementAndGet();
                    } catch (RateLimitExceededException refused) {
                        // counted by omission
                    }
                }
            }));
        }
        for (Future<?> f : done) {
            f.get();
        }
        long end = System.currentTimeMillis();
        pool.shutdown();
        System.out.println("ADMITTED " + admitted.get() + " FROM " + start + " TO " + end);
        System.out.flush();
        store.close();
        client.close();
    }
}
