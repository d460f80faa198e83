package dev.zaelimiter.store.dynamodb;

import dev.zaelimiter.Entity;
import dev.zaelimiter.Lease;
import dev.zaelimiter.Limit;
import dev.zaelimiter.RateLimitExceededException;
import dev.zaelimiter.RateLimiter;
import dev.zaelimiter.StoreUnavailableException;
import dev.zaelimiter.Unavailable;
import dev.zaelimiter.testing.MutableClock;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.interceptor.Context;
import software.amazon.awssdk.core.interceptor.ExecutionAttributes;
import software.amazon.awssdk.core.interceptor.ExecutionInterceptor;
import software.amazon.awssdk.services.dynamodb.model.UpdateItemRequest;

import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * Cascades when the store fails part-way, on dynalite, with failures injected by an SDK interceptor: a refund or a
 * cascade adjustment is applied exactly once however often it is retried, and a call the parent refused stays
 * refused whatever happens to the refund.
 */
class DynamoDbCascadeFaultsTest {

    private final MutableClock clock = MutableClock.start();
    private RateLimiter setup;
    private DynamoDbStore setupStore;

    @BeforeEach
    void setUp() {
        setupStore = DynamoDbTestStores.newStore(getClass(), clock);
        setup = RateLimiter.builder().store(setupStore).clock(clock).build();
        setup.admin().setSystemDefaults(List.of(Limit.perHour("rph", 10)));
        setup.admin().createEntity("org-1");
        setup.admin().createEntity(Entity.of("user-1").withParent("org-1").withCascade(true));
    }

    /** Another process on the same table, whose requests pass through {@code faults}. */
    private RateLimiter process(Unavailable policy, ExecutionInterceptor faults) {
        DynamoDbStore store = DynamoDbStore.builder().client(Dynalite.get().client(faults))
                .table(setupStore.table()).namespace(setupStore.namespace()).clock(clock).requestTimeout(DynamoDbTestStores.REQUEST_TIMEOUT).build();
        return RateLimiter.builder().store(store).clock(clock).onUnavailable(policy).build();
    }

    private void exhaustTheParentAndHalveTheChild() {
        setup.acquire("user-1", "gpt-4", Map.of("rph", 5L));
        setup.acquire("org-1", "gpt-4", Map.of("rph", 5L));
    }

    @Test
    void aRefundWhoseAnswerWasLostIsNotAppliedTwice() {
        exhaustTheParentAndHalveTheChild();
        Fault lostAnswer = new Fault(update -> isRefund(update), true, 1);
        RateLimiter process = process(Unavailable.BLOCK, lostAnswer);

        assertThatThrownBy(() -> process.acquire("user-1", "gpt-4", Map.of("rph", 1L)))
                .isInstanceOf(RateLimitExceededException.class);

        assertThat(lostAnswer.injected.get()).as("the first refund landed but its answer was lost").isEqualTo(1);
        assertThat(setup.available("user-1", "gpt-4")).as("taken once, given back once").containsEntry("rph", 5L);
    }

    @Test
    void aRefundThatFailedBeforeLandingIsTriedAgain() {
        exhaustTheParentAndHalveTheChild();
        Fault refused = new Fault(update -> isRefund(update), false, 2);
        RateLimiter process = process(Unavailable.BLOCK, refused);

        assertThatThrownBy(() -> process.acquire("user-1", "gpt-4", Map.of("rph", 1L)))
                .isInstanceOf(RateLimitExceededException.class);

        assertThat(refused.injected.get()).isEqualTo(2);
        assertThat(setup.available("user-1", "gpt-4")).containsEntry("rph", 5L);
    }

    @Test
    void underAllowACallTheParentRefusedIsRefusedEvenIfItsRefundNeverLands() {
        exhaustTheParentAndHalveTheChild();
        RateLimiter process = process(Unavailable.ALLOW, new Fault(update -> isRefund(update), false, 100));

        assertThatThrownBy(() -> process.acquire("user-1", "gpt-4", Map.of("rph", 1L)))
                .isInstanceOf(RateLimitExceededException.class);
    }

    @Test
    void aCascadeAdjustmentIsCompletedWhenTheParentFailsOnce() {
        Fault parentOnce = new Fault(update -> isBucketOf(update, "org-1") && !isFirstWrite(update), false, 1);
        RateLimiter process = process(Unavailable.BLOCK, parentOnce);
        Lease lease = process.acquire("user-1", "gpt-4", Map.of("rph", 1L));

        lease.adjust("rph", 3);

        assertThat(parentOnce.injected.get()).isEqualTo(1);
        assertThat(setup.available("user-1", "gpt-4")).containsEntry("rph", 6L);
        assertThat(setup.available("org-1", "gpt-4")).containsEntry("rph", 6L);
    }

    @Test
    void aCascadeAdjustmentThatCannotBeCompletedIsUndoneOnTheChild() {
        Fault parentDown = new Fault(update -> isBucketOf(update, "org-1") && !isFirstWrite(update), false, 100);
        RateLimiter process = process(Unavailable.BLOCK, parentDown);
        Lease lease = process.acquire("user-1", "gpt-4", Map.of("rph", 1L));

        assertThatThrownBy(() -> lease.adjust("rph", 3)).isInstanceOf(StoreUnavailableException.class);

        assertThat(setup.available("user-1", "gpt-4")).as("the child's part undone").containsEntry("rph", 9L);
        assertThat(setup.available("org-1", "gpt-4")).containsEntry("rph", 9L);
    }

    private static boolean isRefund(UpdateItemRequest update) {
        // a marker's name stands in the expression as it is, or behind a placeholder
        boolean marked = java.util.regex.Pattern.compile("\\b" + ItemCodec.MARKER)
                .matcher(update.updateExpression()).find()
                || update.expressionAttributeNames().values().stream().anyMatch(n -> n.startsWith(ItemCodec.MARKER));
        return marked && update.key().get("PK").s().contains("user-1");
    }

    private static boolean isBucketOf(UpdateItemRequest update, String entity) {
        return update.key().get("PK").s().endsWith("#E#" + entity) && update.key().get("SK").s().startsWith("#B#");
    }

    private static boolean isFirstWrite(UpdateItemRequest update) {
        return update.conditionExpression().contains("attribute_not_exists(PK)");
    }

    /** Fails the first {@code times} updates that match, before they are sent or after they landed. */
    private static final class Fault implements ExecutionInterceptor {
        private final Predicate<UpdateItemRequest> matches;
        private final boolean afterLanding;
        private final int times;
        private final AtomicInteger matched = new AtomicInteger();
        final AtomicInteger injected = new AtomicInteger();

        Fault(Predicate<UpdateItemRequest> matches, boolean afterLanding, int times) {
            this.matches = matches;
            this.afterLanding = afterLanding;
            this.times = times;
        }

        @Override
        public void beforeTransmission(Context.BeforeTransmission context, ExecutionAttributes attributes) {
            if (!afterLanding) {
                inject(context.request());
            }
        }

        @Override
        public void afterExecution(Context.AfterExecution context, ExecutionAttributes attributes) {
            if (afterLanding) {
                inject(context.request());
            }
        }

        private void inject(Object request) {
            if (request instanceof UpdateItemRequest update && matches.test(update)
                    && matched.incrementAndGet() <= times) {
                injected.incrementAndGet();
                throw SdkClientException.create("injected fault");
            }
        }
    }
}
