package dev.zaelimiter.benchmarks;

import dev.zaelimiter.AcquireRequest;
import dev.zaelimiter.Limit;
import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.Unavailable;
import dev.zaelimiter.store.redis.RedisStore;
import io.github.bucket4j.Bandwidth;
import io.github.bucket4j.BucketConfiguration;
import io.github.bucket4j.ConfigurationBuilder;
import io.github.bucket4j.distributed.BucketProxy;
import io.github.bucket4j.distributed.ExpirationAfterWriteStrategy;
import io.github.bucket4j.distributed.proxy.ProxyManager;
import io.github.bucket4j.redis.lettuce.Bucket4jLettuce;
import io.lettuce.core.ClientOptions;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.codec.ByteArrayCodec;
import io.lettuce.core.codec.RedisCodec;
import io.lettuce.core.codec.StringCodec;

import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The two limiters of the Redis benchmarks, each on a Lettuce client of its own that a {@link RedisCommandCounter}
 * listens to: ours ({@link RedisStore}) and bucket4j's Lettuce backend (compare-and-swap: {@code GET}, then an
 * {@code EVAL} that writes if the value is unchanged), with keys that expire on both. Both take a resource's limits
 * from {@link #declare} or {@link #know}, refilled continuously.
 */
final class RedisPeers implements AutoCloseable {

    /** Which limiter. */
    enum Side {
        OURS("zae-limiter"), BUCKET4J("bucket4j-lettuce");

        final String label;

        Side(String label) {
            this.label = label;
        }
    }

    /** A limit: its name, capacity and refill period. */
    record LimitSpec(String name, long capacity, Duration period) {

        Limit ours() {
            return Limit.custom(name, capacity, capacity, period);
        }

        Bandwidth bucket4j() {
            return Bandwidth.builder().capacity(capacity).refillGreedy(capacity, period).id(name).build();
        }
    }

    /** A slow command on a loaded machine is measured, not failed: these benchmarks count commands. */
    static final Duration TIMEOUT = Duration.ofSeconds(10);

    final RedisCommandCounter counter = new RedisCommandCounter();
    private final Side side;
    private final String prefix;
    private final RedisClient client;
    private final RedisStore store;
    private final RateLimiter limiter;
    private final StatefulRedisConnection<String, byte[]> connection;
    private final ProxyManager<String> buckets;
    private final Map<String, List<LimitSpec>> resources = new HashMap<>();

    RedisPeers(Side side, String uri, String prefix) {
        this.side = side;
        this.prefix = prefix;
        this.client = RedisClient.create(uri);
        client.setOptions(ClientOptions.builder()
                .disconnectedBehavior(ClientOptions.DisconnectedBehavior.REJECT_COMMANDS).build());
        client.setDefaultTimeout(TIMEOUT);
        client.addListener(counter);
        if (side == Side.OURS) {
            this.store = RedisStore.builder().client(client).prefix(prefix).requestTimeout(TIMEOUT).build();
            this.limiter = RateLimiter.builder().store(store).onUnavailable(Unavailable.BLOCK).build();
            this.connection = null;
            this.buckets = null;
        } else {
            this.store = null;
            this.limiter = null;
            this.connection = client.connect(RedisCodec.of(StringCodec.UTF8, ByteArrayCodec.INSTANCE));
            this.buckets = Bucket4jLettuce.casBasedBuilder(connection)
                    .expirationAfterWrite(ExpirationAfterWriteStrategy.basedOnTimeForRefillingBucketUpToMax(
                            Duration.ofSeconds(10)))
                    .build();
        }
    }

    /** Declares {@code resource} with {@code limits}: ours as resource defaults, bucket4j's in each bucket's key. */
    void declare(String resource, List<LimitSpec> limits) {
        know(resource, limits);
        if (side == Side.OURS) {
            limiter.admin().setResourceDefaults(resource, limits.stream().map(LimitSpec::ours).toList());
        }
    }

    /** Takes {@code resource}'s limits as another process declared them. */
    void know(String resource, List<LimitSpec> limits) {
        resources.put(resource, limits);
    }

    /**
     * Reads what a first call needs without taking a token: ours loads the configuration and learns the bucket
     * ({@code checkAvailability}), as a process in steady state has; bucket4j has nothing to load.
     */
    void prepare(String entity, String resource) {
        if (side == Side.OURS) {
            Map<String, Long> one = new HashMap<>();
            resources.get(resource).forEach(limit -> one.put(limit.name(), 1L));
            limiter.checkAvailability(entity, resource, one);
        }
    }

    /** One token of every limit of {@code resource} for {@code entity}, the lease closed at once. */
    SaturationWorker.Decision decision(String entity, String resource) {
        List<LimitSpec> limits = resources.get(resource);
        if (side == Side.OURS) {
            AcquireRequest request = AcquireRequest.of(entity, resource);
            for (LimitSpec limit : limits) {
                request = request.consume(limit.name(), 1);
            }
            return SaturationWorker.decision(limiter, request);
        }
        ConfigurationBuilder config = BucketConfiguration.builder();
        limits.forEach(limit -> config.addLimit(limit.bucket4j()));
        BucketConfiguration configuration = config.build();
        BucketProxy bucket = buckets.builder().build(prefix + "#" + resource + "#" + entity, () -> configuration);
        return () -> bucket.tryConsume(1);
    }

    @Override
    public void close() {
        if (store != null) {
            limiter.close();
            store.close();
        }
        if (connection != null) {
            connection.close();
        }
        client.shutdown(Duration.ZERO, Duration.ofSeconds(2));
    }
}
