package dev.zaelimiter.autoconfigure;

import dev.zaelimiter.ValidationException;
import dev.zaelimiter.store.LimiterStore;
import dev.zaelimiter.store.redis.RedisStore;
import io.lettuce.core.AbstractRedisClient;
import io.lettuce.core.RedisClient;
import io.lettuce.core.cluster.RedisClusterClient;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.config.ConfigurableListableBeanFactory;
import org.springframework.boot.autoconfigure.condition.ConditionMessage;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.SmartLifecycle;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.ConfigurationCondition;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.util.ClassUtils;

import java.time.Clock;
import java.util.ArrayList;
import java.util.List;

/**
 * The Redis store bean, chosen by {@link RedisChosen}: on the application's Lettuce connection (standalone, Sentinel
 * or Cluster) when it has one, else on {@code zae.limiter.redis.url} or {@code spring.data.redis.*}.
 */
@Configuration(proxyBeanMethods = false)
@ConditionalOnClass(name = {RedisStoreConfiguration.REDIS_STORE, "io.lettuce.core.RedisClient"})
@ConditionalOnMissingBean(LimiterStore.class)
@Conditional(RedisStoreConfiguration.RedisChosen.class)
class RedisStoreConfiguration {

    /** The module that holds the Redis store, as a dependency to add. */
    static final String REDIS_MODULE = "dev.zaelimiter:zae-limiter-redis";

    /** The Redis store's entry point, present when {@link #REDIS_MODULE} is on the class path. */
    static final String REDIS_STORE = "dev.zaelimiter.store.redis.RedisStore";

    /** Spring Data Redis's Lettuce connection factory, whose client the store reuses. */
    static final String CONNECTION_FACTORY =
            "org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory";

    private static final Logger log = LoggerFactory.getLogger(RedisStoreConfiguration.class);

    @Bean(StoreBeans.STORE_BEAN)
    RedisStore limiterStore(ZaeLimiterProperties properties, ObjectProvider<Clock> clock, Environment environment,
            ObjectProvider<StoreSetup> setup, ConfigurableListableBeanFactory beanFactory) {
        RedisStore.Builder builder = RedisStore.builder();
        StoreBeans.requestTimeout(properties, builder::requestTimeout);
        ZaeLimiterProperties.Redis redis = properties.getRedis();
        String prefix = redis.getKeyPrefix() != null ? redis.getKeyPrefix() : "zae:" + properties.getNamespace();
        RedisConnection connection = RedisConnection.find(redis.getUrl(), beanFactory, environment);
        if (connection.client() instanceof RedisClusterClient cluster) {
            builder.clusterClient(cluster);
            beanFactory.registerDependentBean(connection.bean(), StoreBeans.STORE_BEAN);
        } else if (connection.client() != null) {
            builder.client((RedisClient) connection.client());
            // the store's connection runs on the application's client: close the store before it
            beanFactory.registerDependentBean(connection.bean(), StoreBeans.STORE_BEAN);
        } else {
            builder.uri(connection.uri());
        }
        RedisStore store = InvalidDeclarationException.check(refused -> property(refused, connection), () -> builder
                .prefix(prefix)
                .clock(clock.getIfUnique(Clock::systemUTC))
                .stampTtl(properties.getStampTtl())
                .usageRetention(properties.getUsage().getHourRetention(), properties.getUsage().getDayRetention())
                .auditRetention(properties.getAudit().getRetention())
                .build());
        StoreBeans.attachSetup(store, setup, beanFactory);
        log.info("zae-limiter uses the Redis store: {}, key prefix '{}'", connection.description(), prefix);
        return store;
    }

    /**
     * Spring Data Redis's connection factory shuts its client down when the context stops, before any bean is
     * destroyed: this writes the limiter's last usage and closes the store while its connection still runs (phase
     * just above the factory's; the web server stops before, so no request is still deciding).
     */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = CONNECTION_FACTORY)
    static class UsageBeforeConnectionStops {

        @Bean
        SmartLifecycle zaeLimiterRedisUsageFlush(ObjectProvider<dev.zaelimiter.RateLimiter> limiter,
                ObjectProvider<RedisStore> store,
                ObjectProvider<org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory> factory) {
            return new SmartLifecycle() {
                private volatile boolean running;

                @Override
                public void start() {
                    running = true;
                }

                @Override
                public void stop() {
                    running = false;
                    limiter.ifUnique(dev.zaelimiter.RateLimiter::close);
                    store.ifUnique(RedisStore::close);
                }

                @Override
                public boolean isRunning() {
                    return running;
                }

                @Override
                public int getPhase() {
                    var shared = factory.getIfUnique();
                    return shared == null ? 0 : shared.getPhase() + 1;
                }
            };
        }
    }

    /** The property a builder argument comes from. */
    private static String property(ValidationException refused, RedisConnection connection) {
        return switch (refused.field()) {
            case "prefix" -> "zae.limiter.redis.key-prefix";
            case "uri" -> connection.property();
            case "usageRetention.hours" -> "zae.limiter.usage.hour-retention";
            case "usageRetention.days" -> "zae.limiter.usage.day-retention";
            case "auditRetention" -> "zae.limiter.audit.retention";
            default -> InvalidDeclarationException.property("zae.limiter", refused.field());
        };
    }

    /** Whether the Redis store and the Lettuce client it needs are both on the application's class path. */
    static boolean redisModulePresent(ClassLoader loader) {
        return ClassUtils.isPresent(REDIS_STORE, loader) && ClassUtils.isPresent("io.lettuce.core.RedisClient", loader);
    }

    /**
     * Where the store connects: {@code client} (a {@code RedisClient} or a {@code RedisClusterClient}) with the name
     * of its bean (the application's), or {@code uri} read from {@code property}; {@code description} for the
     * startup log.
     */
    record RedisConnection(AbstractRedisClient client, String bean, String uri, String property,
            String description) {

        /**
         * {@code zae.limiter.redis.url}, else a single Lettuce {@code RedisClient} or {@code RedisClusterClient}
         * bean, else the client of a single {@code LettuceConnectionFactory} bean, else {@code spring.data.redis.*}.
         */
        static RedisConnection find(String url, ConfigurableListableBeanFactory beanFactory, Environment environment) {
            if (url != null) {
                return new RedisConnection(null, null, url, "zae.limiter.redis.url", "zae.limiter.redis.url "
                        + SpringDataRedisUri.withoutPassword(url));
            }
            String[] clients = beanFactory.getBeanNamesForType(RedisClient.class, false, false);
            if (clients.length == 1) {
                return new RedisConnection(beanFactory.getBean(clients[0], RedisClient.class), clients[0], null, null,
                        "the application's RedisClient bean '" + clients[0] + "'");
            }
            String[] clusterClients = beanFactory.getBeanNamesForType(RedisClusterClient.class, false, false);
            if (clients.length == 0 && clusterClients.length == 1) {
                return new RedisConnection(beanFactory.getBean(clusterClients[0], RedisClusterClient.class),
                        clusterClients[0], null, null, "the application's RedisClusterClient bean '"
                        + clusterClients[0] + "'");
            }
            if (ClassUtils.isPresent(CONNECTION_FACTORY, beanFactory.getBeanClassLoader())) {
                RedisConnection shared = SpringDataRedis.connection(beanFactory);
                if (shared != null) {
                    return shared;
                }
            }
            String uri = SpringDataRedisUri.of(Binder.get(environment));
            return new RedisConnection(null, null, uri, "spring.data.redis.url", "spring.data.redis.* "
                    + SpringDataRedisUri.withoutPassword(uri));
        }
    }

    /** Spring Data Redis's connection factory, only touched when Spring Data Redis is on the class path. */
    private static final class SpringDataRedis {

        static RedisConnection connection(ConfigurableListableBeanFactory beanFactory) {
            var type = org.springframework.data.redis.connection.lettuce.LettuceConnectionFactory.class;
            String[] factories = beanFactory.getBeanNamesForType(type, false, false);
            if (factories.length != 1) {
                return null;
            }
            var factory = beanFactory.getBean(factories[0], type);
            AbstractRedisClient client = factory.getNativeClient();
            if (client == null) {
                factory.start();
                client = factory.getNativeClient();
            }
            String where;
            if (client instanceof RedisClusterClient) {
                where = "Redis Cluster " + factory.getClusterConfiguration().getClusterNodes().stream()
                        .map(node -> node.getHost() + ":" + node.getPort()).sorted().toList();
            } else {
                where = factory.getHostName() + ":" + factory.getPort() + ", database " + factory.getDatabase();
            }
            return new RedisConnection(client, factories[0], null, null, "the client of the application's"
                    + " LettuceConnectionFactory '" + factories[0] + "' (" + where + ")");
        }
    }

    /**
     * store=redis, or store=auto with the Redis store on the class path, DynamoDB not chosen, and a Redis connection
     * to use: {@code zae.limiter.redis.url}, or a Lettuce {@code RedisClient} or {@code LettuceConnectionFactory}
     * bean. Runs once the application's beans are registered.
     */
    static class RedisChosen extends SpringBootCondition implements ConfigurationCondition {

        @Override
        public ConfigurationPhase getConfigurationPhase() {
            return ConfigurationPhase.REGISTER_BEAN;
        }

        @Override
        public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
            return outcome(context.getEnvironment(), context.getBeanFactory(), context.getClassLoader());
        }

        static ConditionOutcome outcome(Environment environment, ConfigurableListableBeanFactory beanFactory,
                ClassLoader loader) {
            ConditionMessage.Builder message = ConditionMessage.forCondition("zae-limiter Redis store");
            Binder binder = Binder.get(environment);
            String store = binder.bind("zae.limiter.store", String.class).orElse("auto");
            if ("redis".equalsIgnoreCase(store)) {
                return ConditionOutcome.match(message.because("zae.limiter.store is redis"));
            }
            if (!"auto".equalsIgnoreCase(store)) {
                return ConditionOutcome.noMatch(message.because("zae.limiter.store is " + store));
            }
            if (LimiterStoreConfigurations.dynamoDbChosen(environment)) {
                return ConditionOutcome.noMatch(message.because("zae.limiter.store is auto and"
                        + " zae.limiter.dynamodb.table is set, which chooses DynamoDB"));
            }
            if (!redisModulePresent(loader)) {
                return ConditionOutcome.noMatch(message.because("zae.limiter.store is auto and " + REDIS_MODULE
                        + " is not on the class path"));
            }
            if (binder.bind("zae.limiter.redis.url", String.class).isBound()) {
                return ConditionOutcome.match(message.because("zae.limiter.store is auto and zae.limiter.redis.url"
                        + " is set"));
            }
            List<String> beans = new ArrayList<>();
            for (String type : List.of("io.lettuce.core.RedisClient", "io.lettuce.core.cluster.RedisClusterClient",
                    CONNECTION_FACTORY)) {
                if (beanFactory != null && ClassUtils.isPresent(type, loader)) {
                    Class<?> resolved = ClassUtils.resolveClassName(type, loader);
                    beans.addAll(List.of(beanFactory.getBeanNamesForType(resolved, false, false)));
                }
            }
            if (!beans.isEmpty()) {
                return ConditionOutcome.match(message.because("zae.limiter.store is auto and the application has a"
                        + " Lettuce connection (bean '" + beans.get(0) + "')"));
            }
            return ConditionOutcome.noMatch(message.because("zae.limiter.store is auto, no zae.limiter.redis.url is"
                    + " set and the application has no Lettuce RedisClient, RedisClusterClient or"
                    + " LettuceConnectionFactory bean"));
        }
    }
}
