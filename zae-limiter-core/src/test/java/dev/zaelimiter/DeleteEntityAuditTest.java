package dev.zaelimiter;

import dev.zaelimiter.store.memory.InMemoryStore;
import dev.zaelimiter.testing.MutableClock;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static org.assertj.core.api.Assertions.assertThat;

class DeleteEntityAuditTest {

    @Test
    void aLevelThatOnlyPausesIsNamedInTheDeleteEntityAudit() {
        MutableClock clock = MutableClock.start();
        RateLimiter limiter = RateLimiter.builder().store(new InMemoryStore()).clock(clock).build();
        limiter.admin().createEntity("tenant-7");
        java.time.Instant until = limiter.pause("tenant-7", "gpt-4", Duration.ofMinutes(5));
        limiter.admin().deleteEntity("tenant-7");

        AuditEvent deleted = limiter.admin().audit(AuditQuery.entity("tenant-7")).events().get(0);
        assertThat(deleted.action()).isEqualTo("delete-entity");
        assertThat(deleted.before()).isEqualTo(Entity.of("tenant-7") + ", gpt-4 paused until " + until);
    }
}
