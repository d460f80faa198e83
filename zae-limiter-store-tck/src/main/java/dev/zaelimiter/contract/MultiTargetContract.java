package dev.zaelimiter.contract;

import dev.zaelimiter.AcquireRequest;
import dev.zaelimiter.Entity;
import dev.zaelimiter.Lease;
import dev.zaelimiter.Limit;
import dev.zaelimiter.LimitStatus;
import dev.zaelimiter.RateLimitExceededException;
import dev.zaelimiter.UnknownLimitException;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** Several budgets spent by one call: all or nothing, with every target's statuses on rejection. */
public abstract class MultiTargetContract extends StoreContractSupport {

    @BeforeEach
    void budgets() {
        admin.setResourceDefaults("send", List.of(Limit.perDay("messages", 100)));
        admin.setLimits("recipient-1", "inbox", List.of(Limit.perDay("messages", 3)));
        admin.setResourceDefaults("smtp", List.of(Limit.perDay("messages", 1000)));
    }

    private AcquireRequest email(String tenant, String recipient) {
        return AcquireRequest.of(tenant, "send").consume("messages", 1)
                .also(recipient, "inbox", Map.of("messages", 1L))
                .also("shared", "smtp", Map.of("messages", 1L));
    }

    @Test
    void everyTargetIsDebitedTogether() {
        Lease lease = limiter.acquire(email("tenant-1", "recipient-1"));
        assertThat(lease.statuses()).extracting(LimitStatus::entityId)
                .containsExactly("tenant-1", "recipient-1", "shared");
        assertThat(limiter.available("tenant-1", "send")).containsEntry("messages", 99L);
        assertThat(limiter.available("recipient-1", "inbox")).containsEntry("messages", 2L);
        assertThat(limiter.available("shared", "smtp")).containsEntry("messages", 999L);
    }

    @Test
    void aRejectionByAnyTargetDebitsNoneAndListsAll() {
        for (int i = 0; i < 3; i++) {
            limiter.acquire(email("tenant-" + i, "recipient-1"));
        }
        RateLimitExceededException e = null;
        try {
            limiter.acquire(email("tenant-9", "recipient-1"));
        } catch (RateLimitExceededException expected) {
            e = expected;
        }
        assertThat(e).isNotNull();
        assertThat(e.statuses()).extracting(LimitStatus::entityId).containsExactly("tenant-9", "recipient-1", "shared");
        assertThat(e.violations()).extracting(LimitStatus::entityId).containsExactly("recipient-1");
        assertThat(limiter.available("tenant-9", "send")).containsEntry("messages", 100L);
        assertThat(limiter.available("shared", "smtp")).containsEntry("messages", 997L);
    }

    @Test
    void rollbackReturnsEveryTargetAndAdjustTouchesTheFirstOnly() {
        Lease lease = limiter.acquire(email("tenant-1", "recipient-1"));
        lease.adjust("messages", 4);
        assertThat(limiter.available("tenant-1", "send")).containsEntry("messages", 95L);
        assertThat(limiter.available("shared", "smtp")).containsEntry("messages", 999L);
        lease.rollback();
        assertThat(limiter.available("tenant-1", "send")).containsEntry("messages", 100L);
        assertThat(limiter.available("recipient-1", "inbox")).containsEntry("messages", 3L);
        assertThat(limiter.available("shared", "smtp")).containsEntry("messages", 1000L);
    }

    @Test
    void targetsSharingABucketAreDebitedForEach() {
        admin.createEntity("org-1");
        admin.createEntity(Entity.of("team-a").withParent("org-1").withCascade(true));
        admin.createEntity(Entity.of("team-b").withParent("org-1").withCascade(true));
        admin.setResourceDefaults("build", List.of(Limit.perDay("minutes", 100)));
        limiter.acquire(AcquireRequest.of("team-a", "build").consume("minutes", 10)
                .also("team-b", "build", Map.of("minutes", 20L)));
        assertThat(limiter.available("org-1", "build")).containsEntry("minutes", 70L);
    }

    @Test
    void eachTargetMustHaveTheLimitsItNames() {
        assertThatThrownBy(() -> limiter.acquire(AcquireRequest.of("tenant-1", "send").consume("messages", 1)
                .also("shared", "smtp", Map.of("bytes", 10L)))).isInstanceOf(UnknownLimitException.class);
        assertThat(limiter.available("tenant-1", "send")).containsEntry("messages", 100L);
    }

    @Test
    void concurrentMultiTargetCallsNeverLeaveAPartialDebit() throws Exception {
        admin.setLimits("recipient-1", "inbox", List.of(Limit.perDay("messages", 40)));
        ExecutorService pool = Executors.newFixedThreadPool(8);
        try {
            List<Future<Integer>> results = new ArrayList<>();
            for (int t = 0; t < 8; t++) {
                String tenant = "tenant-" + t;
                results.add(pool.submit(() -> {
                    int admitted = 0;
                    for (int i = 0; i < 10; i++) {
                        try {
                            limiter.acquire(email(tenant, "recipient-1")).close();
                            admitted++;
                        } catch (RateLimitExceededException rejected) {
                            // counted by omission
                        }
                    }
                    return admitted;
                }));
            }
            int admitted = 0;
            long tenantDebits = 0;
            for (int t = 0; t < 8; t++) {
                int mine = results.get(t).get(2, TimeUnit.MINUTES);
                admitted += mine;
                tenantDebits += 100 - limiter.available("tenant-" + t, "send").get("messages");
                assertThat(100 - limiter.available("tenant-" + t, "send").get("messages")).isEqualTo(mine);
            }
            assertThat(admitted).isEqualTo(40);
            assertThat(tenantDebits).isEqualTo(40);
            assertThat(limiter.available("recipient-1", "inbox")).containsEntry("messages", 0L);
            assertThat(limiter.available("shared", "smtp")).containsEntry("messages", 960L);
        } finally {
            pool.shutdownNow();
        }
    }
}
