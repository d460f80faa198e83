package dev.zaelimiter.autoconfigure.metrics;

import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.RateLimiterListener;
import dev.zaelimiter.StoreUnavailableException;
import dev.zaelimiter.autoconfigure.ImportMeters;
import dev.zaelimiter.autoconfigure.ImportedAutoConfigurations;
import dev.zaelimiter.autoconfigure.LimiterStoreDecorator;
import dev.zaelimiter.autoconfigure.ZaeLimiterAutoConfiguration;
import dev.zaelimiter.store.LimiterStore;
import dev.zaelimiter.store.dynamodb.Dynalite;
import dev.zaelimiter.store.memory.InMemoryStore;
import dev.zaelimiter.testing.SwitchableStore;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.FilteredClassLoader;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;
import software.amazon.awssdk.services.dynamodb.DynamoDbClient;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ZaeLimiterMetricsAutoConfigurationTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(ZaeLimiterAutoConfiguration.class,
                    ZaeLimiterMetricsAutoConfiguration.class))
            .withPropertyValues("zae.limiter.resources.api.limits.rpm.capacity=10");

    private final ApplicationContextRunner withRegistry = runner.withBean(SimpleMeterRegistry.class);

    @Test
    void listenerAndMeteredStoreWithAMeterRegistry() {
        withRegistry.run(context -> {
            assertThat(context).hasSingleBean(MicrometerRateLimiterListener.class)
                    .hasSingleBean(LimiterStoreDecorator.class);
            assertThat(context.getBean(LimiterStore.class)).as("the bean stays as it is")
                    .isInstanceOf(InMemoryStore.class);
            LimiterStore store = context.getBean(RateLimiter.class).store();
            assertThat(store).isInstanceOf(MeteredLimiterStore.class);
            assertThat(((MeteredLimiterStore) store).delegate()).isInstanceOf(InMemoryStore.class);
            RateLimiter limiter = context.getBean(RateLimiter.class);
            assertThat(limiter.store()).isSameAs(store);

            limiter.acquire("user-1", "api", Map.of("rpm", 1L)).close();
            MeterRegistry registry = context.getBean(MeterRegistry.class);
            assertThat(registry.get(MicrometerRateLimiterListener.DECISIONS).counter().count()).isEqualTo(1);
            assertThat(registry.get(MeteredLimiterStore.STORE_LATENCY).tag("operation", "tryAcquire").timer()
                    .count()).isEqualTo(1);
        });
    }

    @Test
    void theCircuitBreakerStateAndItsSkippedCalls() {
        SwitchableStore switchable = new SwitchableStore();
        withRegistry.withBean(LimiterStore.class, () -> switchable)
                .withPropertyValues("zae.limiter.circuit-breaker.failure-threshold=2").run(context -> {
                    MeterRegistry registry = context.getBean(MeterRegistry.class);
                    RateLimiter limiter = context.getBean(RateLimiter.class);
                    assertThat(registry.get(StoreFaultMeters.CIRCUIT).tag("state", "closed").gauge().value())
                            .isEqualTo(1);
                    assertThat(registry.get(StoreFaultMeters.CIRCUIT).tag("state", "open").gauge().value())
                            .isZero();

                    switchable.down();
                    for (int i = 0; i < 5; i++) {
                        assertThatThrownBy(() -> limiter.acquire("user-1", "api", Map.of("rpm", 1L)))
                                .isInstanceOf(StoreUnavailableException.class);
                    }
                    assertThat(registry.get(StoreFaultMeters.CIRCUIT).tag("state", "open").gauge().value())
                            .isEqualTo(1);
                    assertThat(registry.get(StoreFaultMeters.CIRCUIT).tag("state", "closed").gauge().value())
                            .isZero();
                    assertThat(registry.get(StoreFaultMeters.CIRCUIT).tag("state", "half_open").gauge().value())
                            .isZero();
                    assertThat(registry.get(StoreFaultMeters.CIRCUIT_SKIPPED).functionCounter().count())
                            .isEqualTo(3);
                    assertThat(registry.find(StoreFaultMeters.TIMEOUTS).meter()).as("not a DynamoDB store").isNull();
                });
    }

    @Test
    void theRequestTimeoutsOfTheDynamoDbStore() {
        withRegistry.withBean(DynamoDbClient.class, () -> Dynalite.get().client())
                .withPropertyValues("zae.limiter.store=dynamodb", "zae.limiter.dynamodb.table=metrics-timeouts",
                        "zae.limiter.dynamodb.create-table=true", "zae.limiter.store-timeout=10s")
                .run(context -> assertThat(context.getBean(MeterRegistry.class).get(StoreFaultMeters.TIMEOUTS)
                        .functionCounter().count()).isZero());
    }

    @Test
    void worksWithSpringBootsOwnMeterRegistry() {
        runner.withConfiguration(ImportedAutoConfigurations.of(ImportMeters.class))
                .run(context -> {
                    assertThat(context).hasSingleBean(MicrometerRateLimiterListener.class);
                    context.getBean(RateLimiter.class).acquire("user-1", "api", Map.of("rpm", 1L)).close();
                    MeterRegistry registry = context.getBean(MeterRegistry.class);
                    assertThat(registry.get(MicrometerRateLimiterListener.DECISIONS).tag("outcome", "admitted")
                            .counter().count()).isEqualTo(1);
                    // the declarations were written through the metered store at startup
                    assertThat(registry.get(MeteredLimiterStore.STORE_LATENCY).tag("operation", "putLimits")
                            .timer().count()).isEqualTo(1);
                });
    }

    @Test
    void nothingWithoutAMeterRegistry() {
        runner.run(context -> {
            assertThat(context).hasNotFailed().doesNotHaveBean(MicrometerRateLimiterListener.class)
                    .doesNotHaveBean(LimiterStoreDecorator.class);
            assertThat(context.getBean(RateLimiter.class).store()).isInstanceOf(InMemoryStore.class);
        });
    }

    @Test
    void nothingWithoutMicrometer() {
        runner.withClassLoader(new FilteredClassLoader("io.micrometer")).run(context -> {
            assertThat(context).hasNotFailed().hasSingleBean(RateLimiter.class)
                    .doesNotHaveBean(MicrometerRateLimiterListener.class)
                    .doesNotHaveBean(LimiterStoreDecorator.class);
            assertThat(context.getBean(RateLimiter.class).store()).isInstanceOf(InMemoryStore.class);
        });
    }

    @Test
    void nothingWhenDisabled() {
        withRegistry.withPropertyValues("zae.limiter.metrics.enabled=false").run(context -> {
            assertThat(context).doesNotHaveBean(MicrometerRateLimiterListener.class)
                    .doesNotHaveBean(LimiterStoreDecorator.class);
            assertThat(context.getBean(RateLimiter.class).store()).isInstanceOf(InMemoryStore.class);
        });
    }

    @Test
    void nothingWithoutARateLimiter() {
        withRegistry.withPropertyValues("zae.limiter.enabled=false")
                .run(context -> assertThat(context).doesNotHaveBean(MicrometerRateLimiterListener.class)
                        .doesNotHaveBean(LimiterStoreDecorator.class));
    }

    @Test
    void storeLatencyCanBeSwitchedOff() {
        withRegistry.withPropertyValues("zae.limiter.metrics.store-latency=false").run(context -> {
            assertThat(context).hasSingleBean(MicrometerRateLimiterListener.class)
                    .doesNotHaveBean(LimiterStoreDecorator.class);
            assertThat(context.getBean(RateLimiter.class).store()).isInstanceOf(InMemoryStore.class);
        });
    }

    @Test
    void wrapsTheApplicationsOwnStore() {
        InMemoryStore own = new InMemoryStore();
        withRegistry.withBean(LimiterStore.class, () -> own).run(context -> {
            LimiterStore store = context.getBean(RateLimiter.class).store();
            assertThat(store).isInstanceOf(MeteredLimiterStore.class);
            assertThat(((MeteredLimiterStore) store).delegate()).isSameAs(own);
        });
    }

    @Test
    void backsOffWhenTheApplicationDefinesTheListener() {
        MicrometerRateLimiterListener own = new MicrometerRateLimiterListener(new SimpleMeterRegistry(), true);
        withRegistry.withBean("myListener", MicrometerRateLimiterListener.class, () -> own)
                .run(context -> assertThat(context).hasSingleBean(MicrometerRateLimiterListener.class)
                        .hasBean("myListener"));
    }

    @Test
    void otherListenersStillObserve() {
        List<String> seen = new CopyOnWriteArrayList<>();
        withRegistry.withBean("logging", RateLimiterListener.class, () -> d -> seen.add(d.entityId()))
                .run(context -> {
                    context.getBean(RateLimiter.class).acquire("user-1", "api", Map.of("rpm", 1L)).close();
                    assertThat(seen).containsExactly("user-1");
                    assertThat(context.getBean(MeterRegistry.class).get(MicrometerRateLimiterListener.DECISIONS)
                            .counter().count()).isEqualTo(1);
                });
    }
}
