package dev.zaelimiter.autoconfigure;

import dev.zaelimiter.Limit;
import dev.zaelimiter.NoLimitsConfiguredException;
import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.store.ConfigScope;
import dev.zaelimiter.store.memory.InMemoryStore;
import org.junit.jupiter.api.Test;
import org.springframework.boot.autoconfigure.AutoConfigurations;
import org.springframework.boot.test.context.runner.ApplicationContextRunner;

import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * While the declarations are pending, calls resolve with them laid over what the store holds (never with no limits);
 * once they are written, the store alone decides. Single-level reads stay the store's own.
 */
class PendingDeclarationsStoreTests {

    private final ApplicationContextRunner runner = new ApplicationContextRunner()
            .withConfiguration(AutoConfigurations.of(ZaeLimiterAutoConfiguration.class))
            .withPropertyValues("zae.limiter.resources.api.limits.rpm.capacity=5",
                    "zae.limiter.entities.acme.name=Acme",
                    "zae.limiter.entities.acme.resources.api.limits.rpm.capacity=50");

    @Test
    void callsUseTheDeclaredLimitsWhileTheyArePendingAndTheStoresOnceWritten() {
        runner.run(context -> {
            LimitDeclarations declarations = context.getBean(LimitDeclarations.class);
            InMemoryStore stored = new InMemoryStore();
            AtomicBoolean pending = new AtomicBoolean(true);
            PendingDeclarationsStore store = new PendingDeclarationsStore(stored, declarations, pending::get);
            RateLimiter limiter = RateLimiter.builder().store(store).build();

            assertThat(limiter.acquire("user-1", "api", Map.of("rpm", 1L)).statuses()).singleElement()
                    .satisfies(s -> assertThat(s.capacity()).isEqualTo(5));
            assertThat(limiter.acquire("acme", "api", Map.of("rpm", 1L)).statuses()).singleElement()
                    .satisfies(s -> assertThat(s.capacity()).isEqualTo(50));
            assertThat(store.getLevel(ConfigScope.resource("api")).limits()).as("single levels are the store's")
                    .isNull();

            stored.putLimits(ConfigScope.resource("api"), List.of(Limit.perMinute("rpm", 7)));
            assertThat(limiter.acquire("user-2", "api", Map.of("rpm", 1L)).statuses()).singleElement()
                    .as("declared wins, as it will once written")
                    .satisfies(s -> assertThat(s.capacity()).isEqualTo(5));

            pending.set(false);
            assertThat(limiter.acquire("user-3", "api", Map.of("rpm", 1L)).statuses()).singleElement()
                    .satisfies(s -> assertThat(s.capacity()).isEqualTo(7));
            assertThatThrownBy(() -> limiter.acquire("user-4", "other", Map.of("rpm", 1L)))
                    .isInstanceOf(NoLimitsConfiguredException.class);
        });
    }

    @Test
    void everyOtherCallIsTheStoresOwnDeleteEntityAuditIncluded() {
        runner.run(context -> {
            InMemoryStore stored = new InMemoryStore();
            PendingDeclarationsStore store = new PendingDeclarationsStore(stored,
                    context.getBean(LimitDeclarations.class), () -> false);
            RateLimiter limiter = RateLimiter.builder().store(store).build();
            limiter.admin().createEntity(dev.zaelimiter.Entity.of("acme"));
            limiter.admin().setLimits("acme", "api", List.of(Limit.perMinute("rpm", 3)));

            assertThat(store.entityScopes("acme")).containsExactlyElementsOf(stored.entityScopes("acme"))
                    .contains(ConfigScope.entity("acme", "api"));
            limiter.admin().deleteEntity("acme");
            assertThat(limiter.admin().audit(dev.zaelimiter.AuditQuery.all()).events()).first()
                    .satisfies(e -> assertThat(e.before()).contains("api limits"));
        });
    }
}
