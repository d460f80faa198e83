package dev.zaelimiter.autoconfigure.metrics;

import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.autoconfigure.LimiterStoreDecorator;
import dev.zaelimiter.autoconfigure.ZaeLimiterAutoConfiguration;
import dev.zaelimiter.store.LimiterStore;
import dev.zaelimiter.store.dynamodb.DynamoDbStore;
import io.micrometer.core.instrument.MeterRegistry;
import org.springframework.beans.factory.InitializingBean;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.util.function.SingletonSupplier;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

/**
 * Auto-configuration of Micrometer metrics for the application's {@link RateLimiter}: a
 * {@link MicrometerRateLimiterListener} for its decisions (the limiter's auto-configuration hands it every
 * {@link dev.zaelimiter.RateLimiterListener} bean), {@link StoreFaultMeters} for its circuit breaker and the DynamoDB
 * store's request timeouts, and a {@link dev.zaelimiter.autoconfigure.LimiterStoreDecorator}
 * that times the store the limiter uses (the store bean itself stays as it is). Needs a {@link MeterRegistry} bean, as Spring Boot's actuator provides; off with
 * {@code zae.limiter.metrics.enabled=false}.
 */
// the meter registry's auto-configurations by their Spring Boot 3.5 names and by their Spring Boot 4 ones
@AutoConfiguration(after = ZaeLimiterAutoConfiguration.class, afterName = {
        "org.springframework.boot.actuate.autoconfigure.metrics.MetricsAutoConfiguration",
        "org.springframework.boot.actuate.autoconfigure.metrics.export.simple.SimpleMetricsExportAutoConfiguration",
        "org.springframework.boot.actuate.autoconfigure.metrics.CompositeMeterRegistryAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.MetricsAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.export.simple.SimpleMetricsExportAutoConfiguration",
        "org.springframework.boot.micrometer.metrics.autoconfigure.CompositeMeterRegistryAutoConfiguration"})
@ConditionalOnClass(MeterRegistry.class)
@ConditionalOnBean({MeterRegistry.class, RateLimiter.class})
@ConditionalOnBooleanProperty(name = "zae.limiter.metrics.enabled", matchIfMissing = true)
@EnableConfigurationProperties(ZaeLimiterMetricsProperties.class)
public class ZaeLimiterMetricsAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    public MicrometerRateLimiterListener zaeLimiterMetricsListener(MeterRegistry meterRegistry,
            ZaeLimiterMetricsProperties properties) {
        return new MicrometerRateLimiterListener(meterRegistry, properties.isEntityTag());
    }

    /** The circuit breaker's state and skipped calls. */
    @Bean
    @ConditionalOnMissingBean
    public StoreFaultMeters zaeLimiterStoreFaultMeters(MeterRegistry meterRegistry, RateLimiter rateLimiter) {
        return new StoreFaultMeters(meterRegistry, rateLimiter);
    }

    /** Times every store call of the limiter; the meter registry is resolved on the first call. */
    @Bean
    @ConditionalOnMissingBean(name = "zaeLimiterStoreMetrics")
    @ConditionalOnBooleanProperty(name = "zae.limiter.metrics.store-latency", matchIfMissing = true)
    public LimiterStoreDecorator zaeLimiterStoreMetrics(ObjectProvider<MeterRegistry> meterRegistry) {
        return store -> store instanceof MeteredLimiterStore ? store
                : new MeteredLimiterStore(store, SingletonSupplier.of(meterRegistry::getObject));
    }

    /** The request timeouts of the DynamoDB store, when the limiter's store bean is one. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({DynamoDbClient.class, DynamoDbStore.class})
    static class DynamoDbStoreMeters {

        @Bean
        InitializingBean zaeLimiterStoreTimeoutMeter(MeterRegistry meterRegistry,
                ObjectProvider<LimiterStore> store) {
            return () -> {
                if (store.getIfUnique() instanceof DynamoDbStore dynamodb) {
                    StoreFaultMeters.timeouts(meterRegistry, dynamodb, DynamoDbStore::timeouts);
                }
            };
        }
    }

    /** The command timeouts of the Redis store, when the limiter's store bean is one. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = {"dev.zaelimiter.store.redis.RedisStore", "io.lettuce.core.RedisClient"})
    static class RedisStoreMeters {

        @Bean
        InitializingBean zaeLimiterRedisTimeoutMeter(MeterRegistry meterRegistry, ObjectProvider<LimiterStore> store) {
            return () -> {
                if (store.getIfUnique() instanceof dev.zaelimiter.store.redis.RedisStore redis) {
                    StoreFaultMeters.timeouts(meterRegistry, redis, dev.zaelimiter.store.redis.RedisStore::timeouts);
                }
            };
        }
    }
}
