package dev.zaelimiter.autoconfigure;

import dev.zaelimiter.StoreUnavailableException;
import dev.zaelimiter.ValidationException;
import dev.zaelimiter.store.LimiterStore;
import dev.zaelimiter.store.dynamodb.CascadeWrite;
import dev.zaelimiter.store.dynamodb.DynamoDbStore;
import dev.zaelimiter.store.memory.InMemoryStore;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.boot.autoconfigure.condition.ConditionMessage;
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
import org.springframework.core.env.Environment;
import org.springframework.core.io.ResourceLoader;
import org.springframework.core.type.AnnotatedTypeMetadata;
import org.springframework.util.ClassUtils;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

import java.time.Clock;

/**
 * The store beans, tried in order: DynamoDB when chosen and possible, then Redis ({@link RedisStoreConfiguration}),
 * then memory.
 */
final class LimiterStoreConfigurations {

    private static final Logger log = LoggerFactory.getLogger(LimiterStoreConfigurations.class);

    private LimiterStoreConfigurations() {
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnClass({DynamoDbClient.class, DynamoDbStore.class})
    @ConditionalOnBean(DynamoDbClient.class)
    @ConditionalOnMissingBean(LimiterStore.class)
    @Conditional(DynamoDbChosen.class)
    static class DynamoDb {

        @Bean(StoreBeans.STORE_BEAN)
        DynamoDbStore limiterStore(DynamoDbClient dynamoDbClient, ZaeLimiterProperties properties,
                ObjectProvider<Clock> clock, Environment environment, ObjectProvider<StoreSetup> setup,
                org.springframework.beans.factory.config.ConfigurableListableBeanFactory beanFactory) {
            ZaeLimiterProperties.DynamoDb dynamodb = properties.getDynamodb();
            String name = dynamodb.getTable() != null ? dynamodb.getTable() : "zae-limiter";
            String table = name.startsWith("arn:") ? name : tablePrefix(environment) + name;
            DynamoDbStore.Builder builder = DynamoDbStore.builder();
            StoreBeans.requestTimeout(properties, builder::requestTimeout);
            DynamoDbStore store = InvalidDeclarationException.check(DynamoDb::property, () -> builder
                    .client(dynamoDbClient)
                    .table(table)
                    .namespace(properties.getNamespace())
                    .clock(clock.getIfUnique(Clock::systemUTC))
                    .stampTtl(properties.getStampTtl())
                    .cascadeWrite(CascadeWrite.valueOf(dynamodb.getCascadeWrite().name()))
                    .usageRetention(properties.getUsage().getHourRetention(),
                            properties.getUsage().getDayRetention())
                    .auditRetention(properties.getAudit().getRetention())
                    .build());
            StoreSetup deferred = StoreBeans.attachSetup(store, setup, beanFactory);
            if (dynamodb.isCreateTable()) {
                try {
                    store.createTableIfMissing();
                } catch (StoreUnavailableException e) {
                    if (deferred == null) {
                        throw e;
                    }
                    deferred.deferTable("create table '" + table + "'", store::createTableIfMissing);
                }
            } else if (!requireTable(store) && deferred != null) {
                deferred.deferTable("check that table '" + table + "' exists", () -> {
                    if (!store.tableExists()) {
                        throw new MissingTableException(store.table());
                    }
                });
            }
            log.info("zae-limiter uses the DynamoDB store: table '{}', namespace '{}'", table,
                    properties.getNamespace());
            return store;
        }

        /** The property a builder argument comes from: its name in kebab case under zae.limiter, but for these. */
        private static String property(ValidationException refused) {
            return switch (refused.field()) {
                case "table" -> "zae.limiter.dynamodb.table";
                case "usageRetention.hours" -> "zae.limiter.usage.hour-retention";
                case "usageRetention.days" -> "zae.limiter.usage.day-retention";
                case "auditRetention" -> "zae.limiter.audit.retention";
                default -> InvalidDeclarationException.property("zae.limiter", refused.field());
            };
        }

        /**
         * Fails startup when the table is missing: running on would fail every call ({@code block}) or admit every
         * call unrecorded ({@code allow}) until someone noticed. When DynamoDB cannot be asked, the application starts
         * (the check is left to {@link StoreSetup}) and the unavailability policy applies to its calls, as it would to
         * an outage later on.
         *
         * @return whether the table could be checked
         */
        private static boolean requireTable(DynamoDbStore store) {
            boolean exists;
            try {
                exists = store.tableExists();
            } catch (StoreUnavailableException e) {
                return false;
            }
            if (!exists) {
                store.close();
                throw new MissingTableException(store.table());
            }
            return true;
        }
    }

    @Configuration(proxyBeanMethods = false)
    @ConditionalOnMissingBean(LimiterStore.class)
    static class InMemory {

        @Bean
        InMemoryStore limiterStore(ZaeLimiterProperties properties, Environment environment,
                ResourceLoader resourceLoader) {
            boolean module = dynamoDbModulePresent(resourceLoader.getClassLoader());
            if (properties.getStore() == ZaeLimiterProperties.StoreType.DYNAMODB) {
                throw module ? noDynamoDbClient(environment) : noDynamoDbModule();
            }
            if (properties.getStore() == ZaeLimiterProperties.StoreType.REDIS) {
                throw noRedisModule();
            }
            String why = properties.getStore() != ZaeLimiterProperties.StoreType.AUTO ? " (zae.limiter.store is memory)"
                    : properties.getDynamodb().getTable() == null ? " (zae.limiter.store is auto and no"
                    + " zae.limiter.dynamodb.table is set" + (RedisStoreConfiguration.redisModulePresent(
                    resourceLoader.getClassLoader()) ? ", no zae.limiter.redis.url and no Lettuce connection bean)"
                    : ")") : !module ? " (zae.limiter.store is auto and"
                    + " zae.limiter.dynamodb.table is set, but " + DYNAMODB_MODULE + " is not on the class path)"
                    : " (zae.limiter.store is auto and zae.limiter.dynamodb.table"
                    + " is set, but the application has no DynamoDbClient bean)";
            log.info("zae-limiter uses the in-memory store{}; limits and buckets live in this process only", why);
            return new InMemoryStore();
        }

        /** store=redis without the Redis store's module: names the dependency to add. */
        private static InvalidDeclarationException noRedisModule() {
            return new InvalidDeclarationException("zae.limiter.store", "is 'redis' but the Redis store is not on the"
                    + " class path", "Add the dependency " + RedisStoreConfiguration.REDIS_MODULE + " (the starter"
                    + " dev.zaelimiter:zae-limiter-spring-boot-starter-redis brings it with Spring Data Redis), or"
                    + " write zae.limiter.store=memory to use the in-memory store.");
        }

        /** store=dynamodb without the DynamoDB store's module: names the dependency to add. */
        private static InvalidDeclarationException noDynamoDbModule() {
            return new InvalidDeclarationException("zae.limiter.store", "is 'dynamodb' but the DynamoDB store is not on"
                    + " the class path", "Add the dependency " + DYNAMODB_MODULE + " (and"
                    + " io.awspring.cloud:spring-cloud-aws-starter-dynamodb for its DynamoDbClient, or define a"
                    + " DynamoDbClient bean), or write zae.limiter.store=memory to use the in-memory store.");
        }

        /** store=dynamodb without a DynamoDbClient bean: says why there is none and what to write. */
        private static InvalidDeclarationException noDynamoDbClient(Environment environment) {
            Binder binder = Binder.get(environment);
            if (!ClassUtils.isPresent(SPRING_CLOUD_AWS_DYNAMODB, LimiterStoreConfigurations.class.getClassLoader())) {
                return new InvalidDeclarationException("zae.limiter.store", "is 'dynamodb' but the application has"
                        + " no DynamoDbClient bean, and Spring Cloud AWS's DynamoDB auto-configuration is not on the"
                        + " class path", "Add the dependency io.awspring.cloud:spring-cloud-aws-starter-dynamodb,"
                        + " or define a DynamoDbClient bean, or write"
                        + " zae.limiter.store=memory to use the in-memory store.");
            }
            if (!binder.bind(DYNAMODB_ENABLED, Boolean.class).orElse(true)) {
                return new InvalidDeclarationException(DYNAMODB_ENABLED, "is false, which switches off Spring Cloud"
                        + " AWS's DynamoDbClient, but zae.limiter.store is 'dynamodb' and zae-limiter needs that"
                        + " client", "Write " + DYNAMODB_ENABLED + "=true (or remove the line) and set a region with"
                        + " spring.cloud.aws.region.static=<region of the table>, such as eu-west-1; or define your"
                        + " own DynamoDbClient bean; or write zae.limiter.store=memory to use the in-memory store.");
            }
            return new InvalidDeclarationException("zae.limiter.store", "is 'dynamodb' but the application has no"
                    + " DynamoDbClient bean", "Define a DynamoDbClient bean (Spring Cloud AWS builds one unless"
                    + " spring.cloud.aws.dynamodb.enabled=false), or write zae.limiter.store=memory to use the"
                    + " in-memory store.");
        }
    }

    /** The module that holds the DynamoDB store, as a dependency to add. */
    static final String DYNAMODB_MODULE = "dev.zaelimiter:zae-limiter-dynamodb";

    /** The DynamoDB store's entry point, present when {@link #DYNAMODB_MODULE} is on the class path. */
    static final String DYNAMODB_STORE = "dev.zaelimiter.store.dynamodb.DynamoDbStore";

    /** Whether the DynamoDB store and the AWS SDK client it needs are both on the application's class path. */
    static boolean dynamoDbModulePresent(ClassLoader loader) {
        return ClassUtils.isPresent(DYNAMODB_STORE, loader)
                && ClassUtils.isPresent("software.amazon.awssdk.services.dynamodb.DynamoDbClient", loader);
    }

    /** Spring Cloud AWS's DynamoDB auto-configuration. */
    static final String SPRING_CLOUD_AWS_DYNAMODB = "io.awspring.cloud.autoconfigure.dynamodb.DynamoDbAutoConfiguration";

    /** Spring Cloud AWS's switch for its DynamoDbClient. */
    static final String DYNAMODB_ENABLED = "spring.cloud.aws.dynamodb.enabled";

    /** Spring Cloud AWS's table name prefix, which zae-limiter puts before its own table name too. */
    static final String TABLE_PREFIX = "spring.cloud.aws.dynamodb.table-prefix";

    /** The value of {@code spring.cloud.aws.dynamodb.table-prefix}, or an empty string. */
    static String tablePrefix(Environment environment) {
        return Binder.get(environment).bind(TABLE_PREFIX, String.class).orElse("");
    }

    /** Whether the limiter will use DynamoDB: store=dynamodb, or store=auto with a table configured. */
    static boolean dynamoDbChosen(Environment environment) {
        return DynamoDbChosen.outcome(environment).isMatch();
    }

    /** store=dynamodb, or store=auto with a table configured: the one place that decides it. */
    static class DynamoDbChosen extends SpringBootCondition {

        @Override
        public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
            return outcome(context.getEnvironment());
        }

        static ConditionOutcome outcome(Environment environment) {
            ConditionMessage.Builder message = ConditionMessage.forCondition("zae-limiter DynamoDB store");
            Binder binder = Binder.get(environment);
            String store = binder.bind("zae.limiter.store", String.class).orElse("auto");
            if ("dynamodb".equalsIgnoreCase(store)) {
                return ConditionOutcome.match(message.because("zae.limiter.store is dynamodb"));
            }
            boolean auto = "auto".equalsIgnoreCase(store);
            if (auto && binder.bind("zae.limiter.dynamodb.table", String.class).isBound()) {
                return ConditionOutcome.match(message.because("zae.limiter.store is auto and"
                        + " zae.limiter.dynamodb.table is set"));
            }
            return ConditionOutcome.noMatch(message.because("zae.limiter.store is " + store
                    + (auto ? " and no zae.limiter.dynamodb.table is set" : "")));
        }
    }
}
