package dev.zaelimiter.autoconfigure;

import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.StoreUnavailableException;
import dev.zaelimiter.store.ConfigScope;
import dev.zaelimiter.store.LimiterStore;
import dev.zaelimiter.store.memory.InMemoryStore;
import dev.zaelimiter.store.redis.RedisCluster;
import dev.zaelimiter.store.redis.RedisServer;
import dev.zaelimiter.store.redis.RedisStore;
import dev.zaelimiter.testing.MutableClock;
import io.lettuce.core.RedisClient;
import io.lettuce.core.api.StatefulRedisConnection;
import io.lettuce.core.cluster.RedisClusterClient;
import io.lettuce.core.cluster.api.StatefulRedisClusterConnection;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.springframework.beans.factory.support.DefaultListableBeanFactory;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import org.springframework.boot.test.system.CapturedOutput;
import org.springframework.boot.test.system.OutputCaptureExtension;
import org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory;
import org.springframework.mock.env.MockEnvironment;

import java.net.ServerSocket;
import java.time.Clock;
import java.time.Duration;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The Redis store chosen by {@code zae.limiter.store=redis} or by {@code auto}, on the application's Spring Data Redis
 * connection, against a real redis-server: what it writes lands in the application's Redis and database.
 */
@ExtendWith(OutputCaptureExtension.class)
class RedisStoreAutoConfigurationTests {

    private static final RedisServer SERVER = RedisServer.get();

    private final MutableClock clock = MutableClock.start();

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(ZaeLimiterAutoConfiguration.class))
            .withConfiguration(ImportedAutoConfigurations.of(ImportDataRedis.class))
            .withBean(Clock.class, () -> clock)
            .withPropertyValues("spring.data.redis.host=127.0.0.1", "spring.data.redis.port=" + SERVER.port(),
                    "zae.limiter.store-timeout=10s", "zae.limiter.resources.api.limits.rpm.capacity=10");

    @Test
    void storeRedisUsesTheApplicationsConnectionFactoryAndItsDatabase(CapturedOutput output) {
        runner.withPropertyValues("zae.limiter.store=redis", "spring.data.redis.database=2",
                "zae.limiter.namespace=checkout").run(context -> {
                    assertThat(context).hasNotFailed().getBean(LimiterStore.class).isInstanceOf(RedisStore.class);
                    RedisStore store = context.getBean(RedisStore.class);
                    assertThat(store.prefix()).isEqualTo("zae:checkout");
                    RateLimiter limiter = context.getBean(RateLimiter.class);
                    limiter.acquire("user-1", "api", Map.of("rpm", 3L)).close();
                    assertThat(limiter.available("user-1", "api")).containsEntry("rpm", 7L);
                    try (RedisClient client = RedisClient.create(SERVER.uri() + "/2");
                            StatefulRedisConnection<String, String> redis = client.connect()) {
                        assertThat(redis.sync().exists("zae:checkout#E#user-1#B#api")).isEqualTo(1);
                    }
                    assertThat(output).contains("zae-limiter uses the Redis store: the client of the application's"
                            + " LettuceConnectionFactory 'redisConnectionFactory' (127.0.0.1:" + SERVER.port()
                            + ", database 2), key prefix 'zae:checkout'");
                });
    }

    @Test
    void aConnectionFactoryOnRedisClusterIsSharedToo(CapturedOutput output) {
        RedisCluster cluster = RedisCluster.get();
        String nodes = cluster.uris().stream().map(uri -> uri.getHost() + ":" + uri.getPort()).sorted()
                .reduce((a, b) -> a + "," + b).orElseThrow();
        runner.withPropertyValues("spring.data.redis.cluster.nodes=" + nodes,
                "zae.limiter.redis.key-prefix=clustered").run(context -> {
                    assertThat(context).hasNotFailed().getBean(LimiterStore.class).isInstanceOf(RedisStore.class);
                    RateLimiter limiter = context.getBean(RateLimiter.class);
                    limiter.acquire("user-1", "api", Map.of("rpm", 3L)).close();
                    assertThat(limiter.available("user-1", "api")).containsEntry("rpm", 7L);
                    RedisClusterClient client = cluster.newClient();
                    try (StatefulRedisClusterConnection<String, String> redis = client.connect()) {
                        assertThat(redis.sync().exists("clustered#E#user-1#B#api#{user-1}")).isEqualTo(1);
                    } finally {
                        client.shutdown();
                    }
                    assertThat(output).contains("zae-limiter uses the Redis store: the client of the application's"
                            + " LettuceConnectionFactory 'redisConnectionFactory' (Redis Cluster ["
                            + nodes.replace(",", ", ") + "]), key prefix 'clustered'");
                });
    }

    @Test
    void autoChoosesTheApplicationsRedisClusterClient() {
        RedisClusterClient client = RedisCluster.get().newClient();
        try {
            new ApplicationContextRunner()
                    .withConfiguration(AutoConfigurations.of(ZaeLimiterAutoConfiguration.class))
                    .withBean(Clock.class, () -> clock)
                    .withBean("limitsCluster", RedisClusterClient.class, () -> client)
                    .withPropertyValues("zae.limiter.store-timeout=10s", "zae.limiter.redis.key-prefix=cluster-bean",
                            "zae.limiter.resources.api.limits.rpm.capacity=10")
                    .run(context -> {
                        assertThat(context).hasNotFailed().getBean(LimiterStore.class)
                                .isInstanceOf(RedisStore.class);
                        context.getBean(RateLimiter.class).acquire("user-1", "api", Map.of("rpm", 4L)).close();
                        assertThat(context.getBean(RateLimiter.class).available("user-1", "api"))
                                .containsEntry("rpm", 6L);
                    });
        } finally {
            client.shutdown();
        }
    }

    @Test
    void autoChoosesRedisWhenTheApplicationHasALettuceConnectionFactory() throws Exception {
        runner.withPropertyValues("zae.limiter.redis.key-prefix=auto-chosen").run(context -> {
            assertThat(context).hasNotFailed().getBean(LimiterStore.class).isInstanceOf(RedisStore.class);
            RateLimiter limiter = context.getBean(RateLimiter.class);
            limiter.acquire("user-1", "api", Map.of("rpm", 1L)).close();
            assertThat(command("EXISTS", "auto-chosen#E#user-1#B#api")).isEqualTo(":1");
        });
        assertThat(command("KEYS", "auto-chosen#U#*")).as("usage written on close, before the factory stopped")
                .isNotEqualTo("*0");
    }

    @Test
    void autoKeepsToMemoryWithoutALettuceConnectionAndToDynamoDbWhenItsTableIsSet(CapturedOutput output) {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(ZaeLimiterAutoConfiguration.class))
                .run(context -> assertThat(context).hasNotFailed().getBean(LimiterStore.class)
                        .isInstanceOf(InMemoryStore.class));
        assertThat(output).contains("(zae.limiter.store is auto and no zae.limiter.dynamodb.table is set, no"
                + " zae.limiter.redis.url and no Lettuce connection bean)");

        DefaultListableBeanFactory withFactory = new DefaultListableBeanFactory();
        withFactory.registerSingleton("redisConnectionFactory", new LettuceConnectionFactory());
        ClassLoader loader = getClass().getClassLoader();
        assertOutcome(new MockEnvironment(), withFactory, loader, true, "zae-limiter Redis store"
                + " zae.limiter.store is auto and the application has a Lettuce connection (bean"
                + " 'redisConnectionFactory')");
        assertOutcome(new MockEnvironment(), new DefaultListableBeanFactory(), loader, false,
                "zae-limiter Redis store zae.limiter.store is auto, no zae.limiter.redis.url is set and the"
                        + " application has no Lettuce RedisClient, RedisClusterClient or LettuceConnectionFactory"
                        + " bean");
        assertOutcome(new MockEnvironment().withProperty("zae.limiter.redis.url", SERVER.uri()),
                new DefaultListableBeanFactory(), loader, true,
                "zae-limiter Redis store zae.limiter.store is auto and zae.limiter.redis.url is set");
        assertOutcome(new MockEnvironment().withProperty("zae.limiter.dynamodb.table", "limits"), withFactory, loader,
                false, "zae-limiter Redis store zae.limiter.store is auto and zae.limiter.dynamodb.table is set,"
                        + " which chooses DynamoDB");
        assertOutcome(new MockEnvironment(), withFactory, new FilteredClassLoader(RedisStore.class), false,
                "zae-limiter Redis store zae.limiter.store is auto and dev.zaelimiter:zae-limiter-redis is not on"
                        + " the class path");
        assertOutcome(new MockEnvironment().withProperty("zae.limiter.store", "memory"), withFactory, loader, false,
                "zae-limiter Redis store zae.limiter.store is memory");
        assertOutcome(new MockEnvironment().withProperty("zae.limiter.store", "redis"),
                new DefaultListableBeanFactory(), loader, true, "zae-limiter Redis store zae.limiter.store is redis");
    }

    @Test
    void storeRedisWithoutTheRedisModuleFailsNamingTheDependency() {
        new ApplicationContextRunner()
                .withConfiguration(AutoConfigurations.of(ZaeLimiterAutoConfiguration.class))
                .withClassLoader(new FilteredClassLoader(RedisStore.class))
                .withPropertyValues("zae.limiter.store=redis").run(context -> {
                    assertThat(context).hasFailed();
                    InvalidDeclarationException e = cause(context.getStartupFailure());
                    assertThat(e.property()).isEqualTo("zae.limiter.store");
                    assertThat(e.action()).contains("dev.zaelimiter:zae-limiter-redis");
                });
    }

    @Test
    void badRedisSettingsFailStartupNamingTheProperty() {
        runner.withPropertyValues("zae.limiter.store=redis", "zae.limiter.redis.key-prefix=has#hash")
                .run(context -> assertThat(cause(context.getStartupFailure()).property())
                        .isEqualTo("zae.limiter.redis.key-prefix"));
        runner.withPropertyValues("zae.limiter.store=redis", "zae.limiter.redis.url=http://[nowhere")
                .run(context -> assertThat(cause(context.getStartupFailure()).property())
                        .isEqualTo("zae.limiter.redis.url"));
        runner.withPropertyValues("zae.limiter.store=redis", "zae.limiter.store-timeout=0s")
                .run(context -> assertThat(cause(context.getStartupFailure()).property())
                        .isEqualTo("zae.limiter.store-timeout"));
        runner.withPropertyValues("zae.limiter.store=redis", "zae.limiter.stamp-ttl=1s")
                .run(context -> assertThat(cause(context.getStartupFailure()).property())
                        .isEqualTo("zae.limiter.stamp-ttl"));
        runner.withPropertyValues("zae.limiter.store=redis", "zae.limiter.usage.hour-retention=1h")
                .run(context -> assertThat(cause(context.getStartupFailure()).property())
                        .isEqualTo("zae.limiter.usage.hour-retention"));
        runner.withPropertyValues("zae.limiter.store=redis", "zae.limiter.usage.day-retention=2d")
                .run(context -> assertThat(cause(context.getStartupFailure()).property())
                        .isEqualTo("zae.limiter.usage.day-retention"));
        runner.withPropertyValues("zae.limiter.store=redis", "zae.limiter.audit.retention=1h")
                .run(context -> assertThat(cause(context.getStartupFailure()).property())
                        .isEqualTo("zae.limiter.audit.retention"));
    }

    @Test
    void theRetentionPropertiesSetTheRedisStoresKeyExpiry() {
        runner.withPropertyValues("zae.limiter.store=redis", "zae.limiter.redis.key-prefix=retained",
                "zae.limiter.audit.retention=3d").run(context -> {
                    assertThat(context).hasNotFailed();
                    context.getBean(RateLimiter.class).admin().setResourceDefaults("other",
                            java.util.List.of(dev.zaelimiter.Limit.perMinute("rpm", 5)));
                    try (RedisClient client = RedisClient.create(SERVER.uri());
                            StatefulRedisConnection<String, String> redis = client.connect()) {
                        java.util.List<String> events = redis.sync().keys("retained#AE#*");
                        assertThat(events).isNotEmpty().allSatisfy(event -> assertThat(
                                Duration.ofMillis(redis.sync().pttl(event)))
                                .isBetween(Duration.ofDays(3).minusMinutes(1), Duration.ofDays(3)));
                    }
                });
    }

    @Test
    void redisDownAtStartupStartsTheApplicationAndTheDeclarationsLandOnceItIsUp() throws Exception {
        int port = freePort();
        runner.withPropertyValues("zae.limiter.redis.url=redis://127.0.0.1:" + port,
                "zae.limiter.store-timeout=300ms").run(context -> {
                    assertThat(context).hasNotFailed().getBean(LimiterStore.class).isInstanceOf(RedisStore.class);
                    StoreSetup setup = context.getBean(StoreSetup.class);
                    assertThat(setup.pending()).isNotEmpty();
                    RateLimiter limiter = context.getBean(RateLimiter.class);
                    assertThatThrownBy(() -> limiter.acquire("user-1", "api", Map.of("rpm", 1L)))
                            .isInstanceOf(StoreUnavailableException.class);
                    try (RedisServer late = RedisServer.start(port)) {
                        long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
                        while (!setup.pending().isEmpty() && System.nanoTime() < deadline) {
                            Thread.sleep(50);                         // the set-up retries in the background
                        }
                        assertThat(setup.pending()).isEmpty();
                        assertThat(late.command("EXISTS", "zae:default#R#api")).isEqualTo(":1");
                    }
                });
    }

    @Test
    void closingTheContextClosesTheStoreButNotTheApplicationsClient() {
        RedisClient application = RedisClient.create(SERVER.uri());
        try {
            RedisStore[] store = new RedisStore[1];
            new ApplicationContextRunner()
                    .withConfiguration(AutoConfigurations.of(ZaeLimiterAutoConfiguration.class))
                    .withBean(Clock.class, () -> clock)
                    .withBean(RedisClient.class, () -> application, definition -> definition.setDestroyMethodName(""))
                    .withPropertyValues("zae.limiter.store-timeout=10s").run(context -> {
                        store[0] = context.getBean(RedisStore.class);
                        store[0].getLevel(ConfigScope.system());
                    });
            assertThatThrownBy(() -> store[0].getLevel(ConfigScope.system()))
                    .isInstanceOf(StoreUnavailableException.class);
            try (StatefulRedisConnection<String, String> connection = application.connect()) {
                assertThat(connection.sync().ping()).isEqualTo("PONG");
            }
        } finally {
            application.shutdown();
        }
    }

    private static void assertOutcome(MockEnvironment environment, DefaultListableBeanFactory beanFactory,
            ClassLoader loader, boolean match, String message) {
        var outcome = RedisStoreConfiguration.RedisChosen.outcome(environment, beanFactory, loader);
        assertThat(outcome.getMessage()).isEqualTo(message);
        assertThat(outcome.isMatch()).isEqualTo(match);
    }

    private static InvalidDeclarationException cause(Throwable failure) {
        for (Throwable t = failure; t != null; t = t.getCause()) {
            if (t instanceof InvalidDeclarationException e) {
                return e;
            }
        }
        throw new AssertionError("no InvalidDeclarationException in " + failure, failure);
    }

    private static String command(String... words) throws Exception {
        return SERVER.command(words);
    }

    private static int freePort() throws Exception {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
