package dev.zaelimiter.autoconfigure;

import dev.zaelimiter.StoreUnavailableException;
import dev.zaelimiter.ValidationException;
import dev.zaelimiter.store.LimiterStore;
import dev.zaelimiter.store.dynamodb.DynamoDbStore;
import dev.zaelimiter.store.memory.InMemoryStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.ConditionalOnBean;
import org.springframework.boot.autoconfigure.condition.ConditionalOnClass;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.context.annotation.Conditional;
import org.springframework.context.annotation.Configuration;
import org.springframework.core.type.AnnotatedTypeMetadata;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

import java.time.Clock;

/** The store beans, tried in order: DynamoDB when chosen and possible, then memory. */
final class LimiterStoreConfigurations {

    private static final Logger log = LoggerFactory.getLogger(LimiterStoreConfigurations.class);

    private LimiterStoreConfigurations() {
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass(DynamoDbClient.class)
    @ConditionalOnBean(DynamoDbClient.class)
    @ConditionalOnMissingBean(LimiterStore.class)
    @Conditional(DynamoDbChosen.class)
    static class DynamoDb {

        @Bean
        DynamoDbStore limiterStore(DynamoDbClient dynamoDbClient, ZaeLimiterProperties properties,
                ObjectProvider<Clock> clock) {
            ZaeLimiterProperties.DynamoDb dynamodb = properties.getDynamodb();
            String table = dynamodb.getTable() != null ? dynamodb.getTable() : "zae-limiter";
            DynamoDbStore.Builder builder = DynamoDbStore.builder();
            try {
                builder.requestTimeout(properties.getStoreTimeout());
            } catch (ValidationException e) {
                throw new InvalidDeclarationException("zae.limiter.store-timeout", "is '" + properties.getStoreTimeout()
                        + "'; a deadline is more than zero, such as 500ms");
            }
            DynamoDbStore store;
            try {
                store = builder
                        .client(dynamoDbClient)
                        .table(table)
                        .namespace(properties.getNamespace())
                        .clock(clock.getIfUnique(Clock::systemUTC))
                        .stampTtl(properties.getStampTtl())
                        .cascadeWrite(dynamodb.getCascadeWrite())
                        .build();
            } catch (ValidationException e) {
                throw new InvalidDeclarationException(property(e.field()), e.getMessage());
            }
            if (dynamodb.isCreateTable()) {
                store.createTableIfMissing();
            } else {
                requireTable(store);
            }
            log.info("zae-limiter uses the DynamoDB store: table '{}', namespace '{}'", table,
                    properties.getNamespace());
            return store;
        }

        /** The property a builder argument comes from. */
        private static String property(String field) {
            return switch (field) {
                case "table" -> "zae.limiter.dynamodb.table";
                case "namespace" -> "zae.limiter.namespace";
                case "stampTtl" -> "zae.limiter.stamp-ttl";
                default -> "zae.limiter." + field;
            };
        }

        /**
         * Fails startup when the table is missing: running on would fail every call ({@code block}) or admit every
         * call unrecorded ({@code allow}) until someone noticed. When DynamoDB cannot be asked, the application starts
         * and the unavailability policy applies to its calls, as it would to an outage later on.
         */
        private static void requireTable(DynamoDbStore store) {
            boolean exists;
            try {
                exists = store.tableExists();
            } catch (StoreUnavailableException e) {
                log.warn("zae-limiter could not check that DynamoDB table '{}' exists: {}", store.table(),
                        e.getMessage());
                return;
            }
            if (!exists) {
                store.close();
                throw new MissingTableException(store.table());
            }
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnMissingBean(LimiterStore.class)
    static class InMemory {

        @Bean
        InMemoryStore limiterStore(ZaeLimiterProperties properties) {
            if (properties.getStore() == ZaeLimiterProperties.StoreType.DYNAMODB) {
                throw new InvalidDeclarationException("zae.limiter.store", "is 'dynamodb' but the application has no"
                        + " DynamoDbClient bean; add spring-cloud-aws-starter-dynamodb (or define a DynamoDbClient"
                        + " bean), or set zae.limiter.store=memory");
            }
            log.info("zae-limiter uses the in-memory store{}", properties.getStore()
                    == ZaeLimiterProperties.StoreType.AUTO ? " (no DynamoDbClient bean and table configured)" : "");
            return new InMemoryStore();
        }
    }

    /** store=dynamodb, or store=auto with a table configured. */
    static class DynamoDbChosen extends SpringBootCondition {

        @Override
        public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
            Binder binder = Binder.get(context.getEnvironment());
            String store = binder.bind("zae.limiter.store", String.class).orElse("auto");
            if ("dynamodb".equalsIgnoreCase(store)) {
                return ConditionOutcome.match("zae.limiter.store is dynamodb");
            }
            if ("auto".equalsIgnoreCase(store)
                    && binder.bind("zae.limiter.dynamodb.table", String.class).isBound()) {
                return ConditionOutcome.match("zae.limiter.store is auto and zae.limiter.dynamodb.table is set");
            }
            return ConditionOutcome.noMatch("zae.limiter.store is " + store
                    + (store.equalsIgnoreCase("auto") ? " and no zae.limiter.dynamodb.table is set" : ""));
        }
    }
}
