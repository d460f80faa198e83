package dev.zaelimiter.store.dynamodb;

import dev.zaelimiter.RateLimitExceededException;
import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.StoreUnavailableException;
import dev.zaelimiter.testing.RecordingClock;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;

/**
 * A process for {@link DynamoDbReservationsMultiProcessTest}, on the system clock: on {@code WARM} it bursts briefly
 * (so that it reserves a batch), on {@code GO} it acquires with many threads for a while (and at least 50 calls
 * each, however slow the machine), then prints, per
 * millisecond, how many tokens it handed out at that instant (the instant the limiter decided at, read from its
 * clock by the calling thread), and closes its store. Arguments: endpoint table namespace threads runMillis.
 */
public final class ReservationWorker {

    private ReservationWorker() {
    }


    public static void main(String[] args) throws Exception {
        URI endpoint = URI.create(args[0]);
        int threads = Integer.parseInt(args[3]);
        long runMillis = Long.parseLong(args[4]);
        DynamoDbClient client = DynamoDbClient.builder().endpointOverride(endpoint).region(Region.US_EAST_1)
                .credentialsProvider(StaticCredentialsProvider.create(AwsBasicCredentials.create("test", "test")))
                .build();
        RecordingClock clock = new RecordingClock();
        DynamoDbStore store = DynamoDbStore.builder().client(client).table(args[1]).namespace(args[2]).clock(clock)
                .requestTimeout(java.time.Duration.ofSeconds(10)).build();
        RateLimiter limiter = RateLimiter.builder().store(store).clock(clock).build();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        Map<Long, AtomicLong> handedOut = new ConcurrentHashMap<>();

        System.out.println("READY");
        System.out.flush();
        in.readLine();
        run(limiter, clock, handedOut, threads, 100);
        System.out.println("WARMED");
        System.out.flush();
        in.readLine();
        run(limiter, clock, handedOut, threads, runMillis);
        store.close();
        handedOut.forEach((at, count) -> System.out.println("AT " + at + " " + count.get()));
        System.out.println("END");
        System.out.flush();
        client.close();
    }

    private static void run(RateLimiter limiter, RecordingClock clock, Map<Long, AtomicLong> handedOut, int threads,
            long runMillis) throws Exception {
        long start = System.currentTimeMillis();
        ExecutorService pool = Executors.newFixedThreadPool(threads);
        List<Future<?>> done = new ArrayList<>();
        for (int t = 0; t < threads; t++) {
            done.add(pool.submit(() -> {
                for (int calls = 0; calls < 50 || System.currentTimeMillis() - start < runMillis; calls++) {
                    try {
                        limiter.acquire("tenant", "api", Map.of("r", 1L)).close();
                        handedOut.computeIfAbsent(clock.lastOnThisThread(), k -> new AtomicLong()).incrementAndGet();
                    } catch (RateLimitExceededException refused) {
                        // counted by omission
                    } catch (StoreUnavailableException slow) {
                        // a write slowed by load past the wait for it: nothing was handed out
                    }
                }
            }));
        }
        for (Future<?> f : done) {
            f.get();
        }
        pool.shutdown();
    }
}
