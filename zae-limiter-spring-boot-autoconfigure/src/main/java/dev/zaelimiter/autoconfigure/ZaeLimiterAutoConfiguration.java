package dev.zaelimiter.autoconfigure;

import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.RateLimiterListener;
import dev.zaelimiter.ValidationException;
import dev.zaelimiter.store.LimiterStore;
import org.springframework.beans.factory.ListableBeanFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.boot.autoconfigure.AutoConfiguration;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBooleanProperty;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.context.properties.EnableConfigurationProperties;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.context.annotation.Import;
import org.springframework.core.Ordered;
import org.springframework.core.annotation.Order;
import org.springframework.core.env.Environment;

import java.time.Clock;
import java.util.List;

/**
 * Auto-configuration of the {@link RateLimiter}: its store (DynamoDB, Redis or in memory, see
 * {@link ZaeLimiterProperties.StoreType}), and the limits declared under {@code zae.limiter}, checked and written to
 * the store at startup. Every bean backs off when the application defines its own. A {@link Clock} bean, when the
 * application has exactly one, becomes the limiter's clock; every {@link RateLimiterListener} bean observes its
 * decisions, every {@link LimiterStoreDecorator} bean wraps the store it uses, and every
 * {@link RateLimiterBuilderCustomizer} bean tunes the builder last.
 */
@AutoConfiguration(afterName = {"io.awspring.cloud.autoconfigure.dynamodb.DynamoDbAutoConfiguration",
        "org.springframework.boot.data.redis.autoconfigure.DataRedisAutoConfiguration",
        "org.springframework.boot.autoconfigure.data.redis.RedisAutoConfiguration"})
@ConditionalOnBooleanProperty(name = "zae.limiter.enabled", matchIfMissing = true)
@EnableConfigurationProperties(ZaeLimiterProperties.class)
@Import({LimiterStoreConfigurations.DynamoDb.class, RedisStoreConfiguration.class,
        LimiterStoreConfigurations.InMemory.class})
public class ZaeLimiterAutoConfiguration {

    @Bean
    @ConditionalOnMissingBean
    public RateLimiter rateLimiter(LimiterStore limiterStore, ZaeLimiterProperties properties,
            ObjectProvider<Clock> clock, ObjectProvider<RateLimiterListener> listeners,
            ObjectProvider<LimiterStoreDecorator> decorators, ObjectProvider<RateLimiterBuilderCustomizer> customizers,
            ObjectProvider<StoreSetup> setup) {
        StoreSetup storeSetup = setup.getIfUnique();
        LimiterStore store = storeSetup == null ? limiterStore : storeSetup.forCalls(limiterStore);
        for (LimiterStoreDecorator decorator : decorators.orderedStream().toList()) {
            store = decorator.decorate(store);
        }
        RateLimiter.Builder builder = RateLimiter.builder()
                .store(store)
                .clock(clock.getIfUnique(Clock::systemUTC))
                .onUnavailable(properties.getOnUnavailable());
        ZaeLimiterProperties.Breaker breaker = properties.getCircuitBreaker();
        if (!breaker.isEnabled()) {
            builder.noCircuitBreaker();
        } else {
            try {
                builder.circuitBreaker(breaker.getFailureThreshold(), breaker.getCoolDown());
            } catch (ValidationException e) {
                throw new InvalidDeclarationException(InvalidDeclarationException.property("zae.limiter", e.field()),
                        "is '" + e.value() + "'; " + e.rule());
            }
        }
        List<RateLimiterListener> all = listeners.orderedStream().toList();
        if (!all.isEmpty()) {
            builder.listener(all.size() == 1 ? all.get(0) : decision -> all.forEach(l -> l.onDecision(decision)));
        }
        customizers.orderedStream().forEach(customizer -> customizer.customize(builder));
        return builder.build();
    }

    /** Fails startup on a property under {@code zae.limiter} that is no setting, before any bean is created. */
    @Bean
    static UnknownPropertiesCheck zaeLimiterUnknownPropertiesCheck() {
        return new UnknownPropertiesCheck();
    }

    /** Makes Spring Cloud AWS's DynamoDB beans lazy when the limiter does not use DynamoDB: no region needed. */
    @Bean
    @ConditionalOnClass(name = LimiterStoreConfigurations.SPRING_CLOUD_AWS_DYNAMODB)
    static SpringCloudAwsDynamoDbDeferral zaeLimiterSpringCloudAwsDynamoDbDeferral() {
        return new SpringCloudAwsDynamoDbDeferral();
    }

    @Bean
    @ConditionalOnMissingBean
    public LimitDeclarations limitDeclarations(ZaeLimiterProperties properties, Environment environment) {
        return LimitDeclarations.from(properties, environment.getProperty("spring.application.name"));
    }

    /** Reports consumed limits that no declaration defines, once every bean (and so every rule user) exists. */
    @Bean
    ConsumeCheck zaeLimiterConsumeCheck(ZaeLimiterProperties properties, ListableBeanFactory beanFactory,
            Environment environment) {
        return new ConsumeCheck(properties, beanFactory, environment);
    }

    /** Sets up the store (its table, the declarations), retrying in the background while it cannot be reached. */
    @Bean
    @ConditionalOnMissingBean
    public StoreSetup zaeLimiterStoreSetup(LimitDeclarations declarations, ZaeLimiterProperties properties) {
        return new StoreSetup(declarations, properties.getOnUnavailable());
    }

    /**
     * Writes the declarations to the store once every singleton exists: each bean checks its own settings as it is
     * created (rules, outbound targets), so a bad one fails startup before anything is written. When the store
     * cannot be reached, {@link StoreSetup} writes them once it can.
     */
    @Bean
    public SmartInitializingSingleton limitDeclarationsApplier(StoreSetup setup, RateLimiter rateLimiter) {
        return () -> setup.start(rateLimiter.admin());
    }

    /**
     * Sets usage history and the audit actor on the limiter's builder from {@code zae.limiter.usage} and
     * {@code zae.limiter.audit}, before any application customizer.
     */
    @Bean
    @Order(Ordered.HIGHEST_PRECEDENCE)
    RateLimiterBuilderCustomizer zaeLimiterHistoryCustomizer(ZaeLimiterProperties properties,
            ObjectProvider<AuditActor> actors, Environment environment) {
        ZaeLimiterProperties.Usage usage = properties.getUsage();
        String fallback = properties.getAudit().getActor() != null ? properties.getAudit().getActor()
                : environment.getProperty("spring.application.name", "application");
        List<AuditActor> ordered = actors.orderedStream().toList();
        return builder -> {
            if (!usage.isEnabled()) {
                builder.noUsageHistory();
            } else {
                try {
                    builder.usageFlushInterval(usage.getFlushInterval());
                } catch (ValidationException e) {
                    throw new InvalidDeclarationException("zae.limiter.usage.flush-interval", "is '"
                            + usage.getFlushInterval() + "'; zero (write only on shutdown) or at least 100ms");
                }
            }
            builder.actor(() -> {
                for (AuditActor actor : ordered) {
                    String name = actor.currentActor();
                    if (name != null && !name.isBlank()) {
                        return name;
                    }
                }
                return fallback;
            });
        };
    }

    /** Attributes changes to the signed-in user when Spring Security is present. */
    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(name = "org.springframework.security.core.context.SecurityContextHolder")
    static class SecurityActorConfiguration {

        @Bean
        @Order(0)
        AuditActor zaeLimiterSecurityContextActor() {
            return new SecurityContextAuditActor();
        }
    }
}
